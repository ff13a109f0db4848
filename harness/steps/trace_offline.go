package steps

import (
	"fmt"
	"sort"

	"github.com/agentconform/conform/spec/wire"
)

// Offline trace checks: what a recorded trace shows with no recorded run
// beside it (`conform trace check FILE`, the bridge's OTLP receiver). The
// run's checks (coveredBy, hookSpans, hookSpansInTurns) compare spans with
// the requests the harness recorded; alone, a trace can show only their
// nesting, which those checks also demand, through the same spanIndex
// helpers (inTurn, childrenOf). A pass here is therefore partial.

// TraceCheck is one offline check's outcome for one session of a trace.
type TraceCheck struct {
	Requirement string      `json:"requirement"`
	Session     string      `json:"session"`
	Check       string      `json:"check"`
	Status      CheckStatus `json:"status"`
	Message     string      `json:"message,omitempty"`
}

// TracePartial names the clause an offline pass cannot see.
const TracePartial = "the trace shows the spans' nesting; that each span covers its request needs a recorded run"

// TraceOnlyFrom are the trace rows an offline check cannot judge, and why.
var TraceOnlyFrom = map[string]string{
	"TA-32": "persisted state (events, cost ledger, plan items) is not in a trace",
}

// CheckTrace judges spans alone, session by session, in session order.
func CheckTrace(spans []wire.Span) []TraceCheck {
	sessions := map[string]bool{}
	for _, sp := range spans {
		sessions[sp.SessionID] = true
	}
	ids := make([]string, 0, len(sessions))
	for id := range sessions {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []TraceCheck
	for _, id := range ids {
		ix := newSpanIndex(spans, id)
		for _, c := range traceChecks {
			tc := TraceCheck{Requirement: c.req, Session: id, Check: c.what, Status: CheckPass}
			if err := c.check(ix); err != nil {
				tc.Status, tc.Message = CheckFail, err.Error()
				if _, ok := err.(*notReachedError); ok {
					tc.Status = CheckNotReached
				}
			}
			out = append(out, tc)
		}
	}
	return out
}

type traceCheck struct {
	req, what string
	check     func(spanIndex) error
}

var traceChecks = []traceCheck{
	{"TA-17", "the trace has a turn span", func(ix spanIndex) error {
		if len(ix.spans) > 0 && len(ix.role(wire.RoleTurn)) == 0 {
			return fmt.Errorf("the session has %d span(s) and no %q span, so no turn can be reconstructed from the trace", len(ix.spans), wire.RoleTurn)
		}
		return nil
	}},
	{"TA-17", "every turn span encloses a model_call span of its own", func(ix spanIndex) error {
		turns := ix.role(wire.RoleTurn)
		if len(turns) == 0 {
			return notReached("no %q span to check", wire.RoleTurn)
		}
		for _, t := range turns {
			found := false
			for _, m := range ix.role(wire.RoleModelCall) {
				if p, ok := ix.ancestor(m, wire.RoleTurn); ok && p.SpanID == t.SpanID && within(m, t) {
					found = true
					break
				}
			}
			if !found {
				return fmt.Errorf("the %q span %q (%s) holds no %q span: its model call is missing from the trace", wire.RoleTurn, t.Name, t.SpanID, wire.RoleModelCall)
			}
		}
		return nil
	}},
	inTurnCheck(wire.RoleModelCall),
	inTurnCheck(wire.RoleToolExec),
	inTurnCheck(wire.RolePolicyChain),
	{"HD-13", "every hook_subscriber span is a child of a hook_dispatch span and lies within it", func(ix spanIndex) error {
		kids := ix.childrenOf(wire.RoleHookSubscribe)
		if len(kids) == 0 {
			return notReached("no %q span to check", wire.RoleHookSubscribe)
		}
		parents := make([]string, 0, len(kids))
		for p := range kids {
			parents = append(parents, p)
		}
		sort.Strings(parents)
		for _, pid := range parents {
			p, ok := ix.byID[pid]
			for _, k := range kids[pid] {
				switch {
				case !ok || p.Role != wire.RoleHookDispatch:
					return fmt.Errorf("the %q span %q (%s) has no %q parent (parent %q)", wire.RoleHookSubscribe, k.Name, k.SpanID, wire.RoleHookDispatch, pid)
				case !within(k, p):
					return fmt.Errorf("the %q span %q (%s) runs outside its %q parent %q", wire.RoleHookSubscribe, k.Name, k.SpanID, wire.RoleHookDispatch, p.Name)
				}
			}
		}
		return nil
	}},
}

func inTurnCheck(role string) traceCheck {
	return traceCheck{"TA-17", fmt.Sprintf("every %s span lies within the turn span it descends from", role), func(ix spanIndex) error {
		spans := ix.role(role)
		if len(spans) == 0 {
			return notReached("no %q span to check", role)
		}
		for _, sp := range spans {
			if !ix.inTurn(sp) {
				return fmt.Errorf("the %q span %q (%s) is not inside a %q span it descends from", role, sp.Name, sp.SpanID, wire.RoleTurn)
			}
		}
		return nil
	}}
}
