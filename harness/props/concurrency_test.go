package props

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/spec/wire"
)

// Random tool sets, concurrency declarations, policies and messages mixing
// all three kinds (TA-14, TA-15, TA-16, TA-28, TA-29, TA-30, PA-01, PA-03,
// PA-06, PA-07, PA-10). The expected decisions and the conflict relation
// are computed here from the spec's rules, independently of the kernel's
// code, and checked on the recorded log:
//
//   - no two calls whose keys conflict are ever in flight together;
//   - every denied call is never invoked and gets a result in the next
//     model request;
//   - every allowed call is invoked (or sent to the frontend) exactly once;
//   - the reads end before the interactive calls start, which end before
//     the plan is put to the frontend or applied.

type schedTool struct {
	Name, Provider, Kind string
	Conc                 *wire.ConcurrencySpec
	Rule                 string // "", allow, ask or deny (matched by tool name)
	Answer               string // the frontend's answer to an ask: ALLOW or DENY
	HoldMS               int
}

type schedCall struct {
	Tool string
	K    string // the value of the input field "k"
}

type schedCase struct {
	Parallel bool
	Tools    []schedTool
	Calls    []schedCall
}

var schedKinds = []string{wire.KindDataSource, wire.KindDataSource, wire.KindResource, wire.KindResource, wire.KindInteractive}

// schedCases draws 2–5 tools over up to three providers, with random kinds,
// concurrency declarations, rules and frontend answers, and a message of
// 1–8 calls to them whose key field takes one of two values.
var schedCases = rapid.Custom(func(t *rapid.T) schedCase {
	c := schedCase{Parallel: rapid.IntRange(0, 4).Draw(t, "parallel") > 0}
	var names []string
	for i := range rapid.IntRange(2, 5).Draw(t, "tools") {
		tool := schedTool{
			Name:     fmt.Sprintf("t%d", i+1),
			Provider: rapid.SampledFrom([]string{"p1", "p2", "p3"}).Draw(t, "provider"),
			Kind:     rapid.SampledFrom(schedKinds).Draw(t, "kind"),
			HoldMS:   rapid.IntRange(3, 10).Draw(t, "hold_ms"), // long enough for a wrong kernel to show an overlap, also when shrunk
		}
		switch rapid.IntRange(0, 3).Draw(t, "concurrency") {
		case 1:
			tool.Conc = &wire.ConcurrencySpec{Safe: false}
		case 2:
			tool.Conc = &wire.ConcurrencySpec{Safe: true}
		case 3:
			tool.Conc = &wire.ConcurrencySpec{Safe: true, KeyFields: []string{"k"}}
		}
		tool.Rule = rapid.SampledFrom([]string{"", "", wire.PolicyAllow, wire.PolicyAsk, wire.PolicyDeny}).Draw(t, "rule")
		tool.Answer = rapid.SampledFrom([]string{wire.DecisionAllow, wire.DecisionAllow, wire.DecisionDeny}).Draw(t, "answer")
		c.Tools = append(c.Tools, tool)
		names = append(names, tool.Name)
	}
	for range rapid.IntRange(1, 8).Draw(t, "calls") {
		c.Calls = append(c.Calls, schedCall{
			Tool: rapid.SampledFrom(names).Draw(t, "call"),
			K:    rapid.SampledFrom([]string{"a", "b"}).Draw(t, "k"),
		})
	}
	return c
})

func (c schedCase) tool(name string) schedTool {
	for _, t := range c.Tools {
		if t.Name == name {
			return t
		}
	}
	return schedTool{}
}

// allowed is the spec's decision for a call: reads and interactive calls
// get the precheck (no rule: allow; ask becomes deny), resources the gate
// (no rule: ask; an ask is the frontend's answer).
func (c schedCase) allowed(call schedCall) bool {
	t := c.tool(call.Tool)
	switch t.Rule {
	case wire.PolicyAllow:
		return true
	case wire.PolicyDeny:
		return false
	case wire.PolicyAsk:
		return t.Kind == wire.KindResource && t.Answer == wire.DecisionAllow
	}
	return t.Kind != wire.KindResource || t.Answer == wire.DecisionAllow
}

// conflicts is the spec's "must not overlap" relation between two calls.
func (c schedCase) conflicts(a, b schedCall) bool {
	if !c.Parallel {
		return true
	}
	ta, tb := c.tool(a.Tool), c.tool(b.Tool)
	if ta.Kind == wire.KindInteractive || tb.Kind == wire.KindInteractive {
		return ta.Kind == tb.Kind // one human answers them all; groups keep other kinds apart
	}
	if ta.Provider != tb.Provider {
		return false
	}
	safe := func(t schedTool) bool { return t.Conc != nil && t.Conc.Safe }
	if !safe(ta) || !safe(tb) {
		return true // a provider-wide lock
	}
	keyed := func(t schedTool) bool { return len(t.Conc.KeyFields) > 0 }
	return a.Tool == b.Tool && keyed(ta) && a.K == b.K
}

func (c schedCase) config() wire.SessionConfig {
	maxTurns := 3
	cfg := wire.SessionConfig{
		Profile:          "props-concurrency",
		WorkingDirectory: "/conform/props",
		Bounds:           wire.Bounds{MaxTurns: &maxTurns},
		Hooks:            wire.Hooks{DefaultTimeoutMS: 2000, Subscribers: []wire.Subscriber{}},
		Policy:           wire.Policy{Rules: []wire.PolicyRule{}},
		Model: wire.ModelSpec{
			Name: "fake-model", SupportsToolUse: true, SupportsParallelToolCalls: c.Parallel,
			Pricing: wire.Pricing{Currency: "USD", Tiers: []wire.PricingTier{{InputPerMtok: 1, OutputPerMtok: 2}}},
		},
		Tools: []wire.ToolSchema{},
	}
	for _, t := range c.Tools {
		risk := "read_only"
		if t.Kind == wire.KindResource {
			risk = "moderate"
		}
		cfg.Tools = append(cfg.Tools, wire.ToolSchema{
			Provider: t.Provider, Name: t.Name, Kind: t.Kind, Risk: risk, Concurrency: t.Conc,
			Description: "fake " + t.Kind + " " + t.Name, InputSchema: map[string]any{"type": "object"},
		})
		if t.Rule != "" {
			cfg.Policy.Rules = append(cfg.Policy.Rules, wire.PolicyRule{Name: "r-" + t.Name, Tool: t.Name, Decision: t.Rule})
		}
	}
	return cfg
}

type schedRun struct {
	c       schedCase
	session string
	world   *fakes.World
	result  wire.RunSessionResult
}

func runSched(k *driver.Kernel, c schedCase, session string) (*schedRun, error) {
	w := fakes.NewWorld()
	defer w.Close()
	defer k.Unregister(w)
	for _, t := range c.Tools {
		hold := time.Duration(t.HoldMS) * time.Millisecond
		switch t.Kind {
		case wire.KindInteractive:
			w.Frontend.SetInteractive(t.Name, fakes.Interactive{Answer: "answer " + t.Name, Hold: hold})
		default:
			w.Tools.Set(t.Name, fakes.ToolBehavior{Hold: hold})
		}
		w.Frontend.SetPermission(t.Name, fakes.Permission{Decision: t.Answer})
	}
	var calls []fakes.Call
	for _, cl := range c.Calls {
		in, _ := json.Marshal(map[string]string{"k": cl.K})
		calls = append(calls, fakes.Call{Name: cl.Tool, Input: in})
	}
	w.Model.On(1, fakes.Reply{Calls: calls})
	w.Model.On(2, fakes.Reply{Text: "Finished."})
	res, err := k.Run(context.Background(), w, wire.RunParams{SessionID: session, Prompt: "Please do it.", Config: c.config()}, 20*time.Second)
	if err != nil {
		return nil, fmt.Errorf("the kernel faulted: %v", err)
	}
	return &schedRun{c: c, session: session, world: w, result: res}, nil
}

// started maps each call id to its invoke or interactive request.
func (r *schedRun) started() map[string][]calllog.Entry {
	out := map[string][]calllog.Entry{}
	for _, e := range r.world.Log.Entries() {
		if e.SessionID != r.session || e.Kind != calllog.Request {
			continue
		}
		switch v := e.Value.(type) {
		case wire.ToolInvokeParams:
			out[v.CallID] = append(out[v.CallID], e)
		case wire.InteractiveParams:
			out[v.CallID] = append(out[v.CallID], e)
		}
	}
	return out
}

// callID is the id the fake model gives call i of its first reply.
func callID(i int) string { return fmt.Sprintf("call-1-%d", i+1) }

func (r *schedRun) check() []string {
	var bad []string
	fail := func(format string, a ...any) { bad = append(bad, fmt.Sprintf(format, a...)) }
	c := r.c
	ran := r.started()

	// Decisions: allowed calls run once, denied calls never, and each
	// denied call has a result in the next model request.
	var results map[string]wire.ContentBlock
	var models int
	for _, e := range r.world.Log.Entries() {
		if v, ok := e.Value.(wire.ModelStreamParams); ok && e.SessionID == r.session {
			models++
			if models == 2 {
				results = map[string]wire.ContentBlock{}
				for _, m := range v.Messages {
					for _, b := range m.Content {
						if b.Type == wire.BlockToolResult {
							results[b.ToolUseID] = b
						}
					}
				}
			}
		}
	}
	if results == nil {
		fail("no second model request (status %q, %s)", r.result.Status, r.result.Error)
		return bad
	}
	for i, cl := range c.Calls {
		id := callID(i)
		switch n := len(ran[id]); {
		case c.allowed(cl) && n != 1:
			fail("%s (%s) is allowed and must run exactly once; it ran %d times", id, cl.Tool, n)
		case !c.allowed(cl) && n != 0:
			fail("%s (%s) is denied and must never run; it ran %d times", id, cl.Tool, n)
		}
		res, ok := results[id]
		switch {
		case !ok:
			fail("model request 2 has no result for %s (%s)", id, cl.Tool)
		case !c.allowed(cl) && (strings.TrimSpace(res.Content) == "" || !res.IsError):
			fail("the denial result of %s (%s) gives no reason or is not an error: %+v", id, cl.Tool, res)
		}
	}

	// No two conflicting calls overlap.
	for i := range c.Calls {
		for j := range c.Calls {
			if i >= j || !c.conflicts(c.Calls[i], c.Calls[j]) {
				continue
			}
			for _, a := range ran[callID(i)] {
				for _, b := range ran[callID(j)] {
					first, second := a, b
					if b.Seq < a.Seq {
						first, second = b, a
					}
					if !first.Answered() || second.Seq < first.EndSeq {
						fail("%s (#%d) and %s (#%d) must not overlap, but did", first.Label, first.Seq, second.Label, second.Seq)
					}
				}
			}
		}
	}

	// Group order: reads, then interactive calls, then the plan and the
	// applies.
	var reads, inter, plan []calllog.Entry
	for _, e := range r.world.Log.Entries() {
		if e.SessionID != r.session || e.Kind != calllog.Request {
			continue
		}
		switch v := e.Value.(type) {
		case wire.ToolInvokeParams:
			if c.tool(v.Tool).Kind == wire.KindDataSource {
				reads = append(reads, e)
			} else {
				plan = append(plan, e)
			}
		case wire.InteractiveParams:
			inter = append(inter, e)
		case wire.PermissionParams:
			plan = append(plan, e)
		}
	}
	groupsBefore := func(a, b []calllog.Entry, what string) {
		for _, x := range a {
			for _, y := range b {
				if !x.Answered() || y.Seq < x.EndSeq {
					fail("%s: %s (#%d) was still in flight when %s (#%d) started", what, x.Label, x.Seq, y.Label, y.Seq)
					return
				}
			}
		}
	}
	groupsBefore(reads, append(slices.Clone(inter), plan...), "reads must end before interactive calls and the plan")
	groupsBefore(inter, plan, "interactive calls must end before the plan")
	return bad
}

func (c schedCase) String() string {
	var tools, calls []string
	for _, t := range c.Tools {
		conc := "undeclared"
		if t.Conc != nil {
			conc = fmt.Sprintf("safe=%v keys=%v", t.Conc.Safe, t.Conc.KeyFields)
		}
		tools = append(tools, fmt.Sprintf("%s(%s@%s %s rule=%q answer=%s hold=%dms)", t.Name, t.Kind, t.Provider, conc, t.Rule, t.Answer, t.HoldMS))
	}
	for _, cl := range c.Calls {
		calls = append(calls, cl.Tool+"("+cl.K+")")
	}
	return fmt.Sprintf("parallel=%v tools=[%s] calls=[%s]", c.Parallel, strings.Join(tools, " "), strings.Join(calls, " "))
}

var schedSessions atomic.Int64

// TestSchedulingProperties runs random messages mixing all three kinds,
// with random concurrency declarations and policies, through the reference
// kernel over the wire and checks the scheduling and gating invariants.
// rapid shrinks a failing case. More cases: -rapid.checks=N; replay:
// -rapid.seed=S.
func TestSchedulingProperties(t *testing.T) {
	k := startKernel(t)
	rapid.Check(t, func(t *rapid.T) {
		c := schedCases.Draw(t, "case")
		r, err := runSched(k, c, fmt.Sprintf("props-sched-%d", schedSessions.Add(1)))
		if err != nil {
			t.Fatalf("%v\ncase: %s", err, c)
		}
		if bad := r.check(); len(bad) > 0 {
			t.Fatalf("case: %s\nbroken: %s", c, strings.Join(bad, "\n        "))
		}
	})
}

// TestSchedulingModel pins the relation the property checks against.
func TestSchedulingModel(t *testing.T) {
	c := schedCase{Parallel: true, Tools: []schedTool{
		{Name: "w", Provider: "p", Kind: wire.KindResource, Conc: &wire.ConcurrencySpec{Safe: true, KeyFields: []string{"k"}}},
		{Name: "r", Provider: "p", Kind: wire.KindDataSource, Conc: &wire.ConcurrencySpec{Safe: true}},
		{Name: "u", Provider: "p", Kind: wire.KindDataSource},
		{Name: "x", Provider: "q", Kind: wire.KindResource, Rule: wire.PolicyAsk, Answer: wire.DecisionDeny},
		{Name: "i", Provider: "q", Kind: wire.KindInteractive, Conc: &wire.ConcurrencySpec{Safe: true}, Rule: wire.PolicyAsk},
		{Name: "j", Provider: "z", Kind: wire.KindInteractive},
	}}
	cases := []struct {
		a, b schedCall
		want bool
	}{
		{schedCall{"w", "a"}, schedCall{"w", "a"}, true},
		{schedCall{"w", "a"}, schedCall{"w", "b"}, false},
		{schedCall{"r", "a"}, schedCall{"r", "a"}, false},
		{schedCall{"u", "a"}, schedCall{"r", "b"}, true},
		{schedCall{"u", "a"}, schedCall{"x", "a"}, false},
		{schedCall{"i", "a"}, schedCall{"j", "b"}, true},
	}
	for _, k := range cases {
		if got := c.conflicts(k.a, k.b); got != k.want {
			t.Errorf("conflicts(%v, %v) = %v", k.a, k.b, got)
		}
	}
	if c.allowed(schedCall{Tool: "x"}) || c.allowed(schedCall{Tool: "i"}) || !c.allowed(schedCall{Tool: "u"}) {
		t.Error("allowed")
	}
	c.Parallel = false
	if !c.conflicts(schedCall{"r", "a"}, schedCall{"x", "b"}) {
		t.Error("a model without parallel calls serializes everything")
	}
}
