package mutants

import (
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// A legal variant of how a denial reaches the model: the specification's
// tool_result block has no error flag, and a denial "surfaces as
// tool-result text" (plan-apply-gate.md), so a kernel whose denials carry
// their reason as plain text, without is_error, denies correctly. Every
// check judging a denial or a hook-blocked call reads the one rule of
// PROTOCOL.md §7.4: the call never ran, and its tool_result is there.
// Before, HD-04, HD-10 and HD-11 failed such a kernel on the flag alone
// while PA-03 passed it (found on the OpenAI Agents SDK).
func init() {
	registerVariant(Variant{Name: "plan/denials-without-is-error",
		Reading: "a denial (policy, human, veto subscriber, failed veto, precheck) reaches the model as a tool_result carrying its reason as text, without is_error or error_category: the specification's tool_result has no error flag (PROTOCOL.md §7.4, Denials)",
		Apply: func(p loop.Parts) loop.Parts {
			p.Steps = aroundStep(p.Steps, loop.StepHistory, plainDenials)
			return p
		},
		Tags: "@PA-01,@PA-02,@PA-03,@PA-06,@PA-08,@PA-09,@PA-16,@HD-04,@HD-08,@HD-10,@HD-11"})
}

// plainDenials strips the error flag and category from the turn's denials
// and returns what puts them back, so that only the history step (the next
// model request) sees plain-text denials and the circuit breaker still
// counts them.
func plainDenials(t *loop.Turn) func() {
	return swapRefusals(t, false, func(r *wire.ToolResult) *wire.ToolResult { return &wire.ToolResult{Content: r.Content} })
}

// swapRefusals replaces, for one step, the results of the turn's calls
// answered permission_denied: denials (calls that never ran) or, with
// executed, the gate's refusals (which answer in the tool's place, so the
// loop sees a call that ran). It returns what puts them back.
func swapRefusals(t *loop.Turn, executed bool, swap func(*wire.ToolResult) *wire.ToolResult) func() {
	type saved struct {
		c   *loop.Call
		old *wire.ToolResult
	}
	var keep []saved
	for _, c := range t.ToolCalls() {
		if c.Result == nil || c.Executed != executed || c.Result.ErrorCategory != wire.ToolErrPermissionDenied {
			continue
		}
		keep = append(keep, saved{c, c.Result})
		c.Result = swap(c.Result)
	}
	return func() {
		for _, k := range keep {
			k.c.Result = k.old
		}
	}
}

// aroundStep runs before ahead of the named step and the function it
// returns after it.
func aroundStep(steps []loop.Step, name string, before func(t *loop.Turn) func()) []loop.Step {
	out := make([]loop.Step, len(steps))
	copy(out, steps)
	for i, st := range out {
		if st.Name != name {
			continue
		}
		run := st.Run
		out[i].Run = func(t *loop.Turn) error {
			undo := before(t)
			defer undo()
			return run(t)
		}
	}
	return out
}
