package steps

import (
	"strings"
	"testing"

	"github.com/agentconform/conform/spec/wire"
)

func traceSpan(id, parent, role string, start, end int64) wire.Span {
	return wire.Span{TraceID: "t", SpanID: id, ParentSpanID: parent, Name: "n-" + id, Role: role, SessionID: "s", StartUnixNano: start * 1e6, EndUnixNano: end * 1e6}
}

func goodTrace() []wire.Span {
	return []wire.Span{
		traceSpan("S", "", wire.RoleSession, 0, 1000),
		traceSpan("T", "S", wire.RoleTurn, 10, 900),
		traceSpan("M", "T", wire.RoleModelCall, 20, 200),
		traceSpan("H", "T", wire.RoleHookDispatch, 210, 300),
		traceSpan("h1", "H", wire.RoleHookSubscribe, 211, 250),
		traceSpan("h2", "H", wire.RoleHookSubscribe, 251, 299),
		traceSpan("P", "T", wire.RolePolicyChain, 301, 320),
		traceSpan("X", "T", wire.RoleToolExec, 321, 800),
	}
}

func statuses(cs []TraceCheck) map[string]CheckStatus {
	out := map[string]CheckStatus{}
	for _, c := range cs {
		out[c.Check] = c.Status
	}
	return out
}

func TestCheckTracePassesANestedTrace(t *testing.T) {
	cs := CheckTrace(goodTrace())
	if len(cs) != len(traceChecks) {
		t.Fatalf("%d checks for one session, want %d", len(cs), len(traceChecks))
	}
	for _, c := range cs {
		if c.Status != CheckPass {
			t.Errorf("%s %s: %s %s", c.Requirement, c.Check, c.Status, c.Message)
		}
	}
}

// Every offline check can fail: one broken trace per check.
func TestCheckTraceFailures(t *testing.T) {
	set := func(i int, f func(*wire.Span)) []wire.Span {
		tr := goodTrace()
		f(&tr[i])
		return tr
	}
	for _, c := range []struct {
		name  string
		spans []wire.Span
		check string
		msg   string
	}{
		{"no turn span", set(1, func(s *wire.Span) { s.Role = wire.RoleSession }), "the trace has a turn span", "no \"turn\" span"},
		{"turn without model call", set(2, func(s *wire.Span) { s.ParentSpanID = "S" }), "every turn span encloses a model_call span of its own", "model call is missing"},
		{"model call outside its turn", set(2, func(s *wire.Span) { s.EndUnixNano = 950e6 }), "every model_call span lies within the turn span it descends from", "not inside"},
		{"tool outside any turn", set(7, func(s *wire.Span) { s.ParentSpanID = "S" }), "every tool_execution span lies within the turn span it descends from", "not inside"},
		{"policy chain orphan", set(6, func(s *wire.Span) { s.ParentSpanID = "gone" }), "every policy_chain span lies within the turn span it descends from", "not inside"},
		{"subscriber under the turn", set(4, func(s *wire.Span) { s.ParentSpanID = "T" }), "every hook_subscriber span is a child of a hook_dispatch span and lies within it", "no \"hook_dispatch\" parent"},
		{"subscriber outlives its dispatch", set(5, func(s *wire.Span) { s.EndUnixNano = 400e6 }), "every hook_subscriber span is a child of a hook_dispatch span and lies within it", "outside its"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var hit *TraceCheck
			cs := CheckTrace(c.spans)
			for i := range cs {
				if cs[i].Check == c.check {
					hit = &cs[i]
				}
			}
			if hit == nil || hit.Status != CheckFail || !strings.Contains(hit.Message, c.msg) {
				t.Errorf("check %q: %+v, want a fail saying %q", c.check, hit, c.msg)
			}
		})
	}
}

func TestCheckTraceNotReachedWithoutSubjects(t *testing.T) {
	st := statuses(CheckTrace([]wire.Span{traceSpan("T", "", wire.RoleTurn, 0, 10), traceSpan("M", "T", wire.RoleModelCall, 1, 2)}))
	if st["every tool_execution span lies within the turn span it descends from"] != CheckNotReached ||
		st["every hook_subscriber span is a child of a hook_dispatch span and lies within it"] != CheckNotReached {
		t.Errorf("checks with nothing to look at: %v", st)
	}
	if len(CheckTrace(nil)) != 0 {
		t.Error("an empty trace produced checks")
	}
}
