package mutants

import (
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// A call the dispatch gate refuses (a closed gate, DF-03; a declined
// confirmation, DF-05) never runs, and the model must be told so. The
// tool-generated campaign found a kernel that passed every check although
// the refusal reached the model as the zero result of a tool that ran with
// no output (refkernel/dfirst/host.go, `err != nil || d.Ran` negated): the
// call was never invoked and the model request held a tool_result for it,
// which was all the shared denial rule (PROTOCOL.md §7.4) asked. This
// mutant is that kernel: the refused call's result is empty and has no
// is_error. Since the rule asks for a result that refuses (flagged, or
// with text), DF-03's and DF-05's refusal checks kill it.
func init() {
	register(Mutant{Name: "dfirst/refusal-as-empty-success", Targets: []string{"DF-03", "DF-05"},
		Breaks: "a call the gate refuses (closed gate or declined confirmation) reaches the model as an empty result without is_error, as if the tool had run with no output",
		Apply: func(p loop.Parts) loop.Parts {
			p.Steps = aroundStep(p.Steps, loop.StepHistory, emptyRefusals)
			return p
		}})
}

// emptyRefusals blanks the results of the turn's gate refusals for the
// history step (the next model request) and returns what puts them back.
// The gate answers a refused call in place of the tool, so the loop sees
// it as a call that ran and answered permission_denied; in the
// deterministic-first scenarios nothing else answers that.
func emptyRefusals(t *loop.Turn) func() {
	return swapRefusals(t, true, func(*wire.ToolResult) *wire.ToolResult { return &wire.ToolResult{} })
}

// The same wrong kernel for every other denial and every call a hook
// blocked (PROTOCOL.md §7.4, Denials): a call denied by policy, by the
// user or by a veto, or blocked by a failed subscriber, never runs and its
// result reaches the model empty and without is_error. The one rule every
// denial check reads let it pass as long as the result was there; only
// PA-03's reason check, where a scenario has it, failed it.
func init() {
	register(Mutant{Name: "plan/denial-as-empty-success", Targets: []string{"HD-04", "HD-08", "HD-10", "HD-11", "PA-01", "PA-02", "PA-03", "PA-06", "PA-08", "PA-09", "PA-16"},
		Breaks: "a denied or hook-blocked call reaches the model as an empty result without is_error, as if the tool had run with no output",
		Apply: func(p loop.Parts) loop.Parts {
			p.Steps = aroundStep(p.Steps, loop.StepHistory, emptyDenials)
			return p
		}})
}

// emptyDenials blanks the results of the turn's denials (calls that never
// ran, answered permission_denied) for the history step.
func emptyDenials(t *loop.Turn) func() {
	return swapRefusals(t, false, func(*wire.ToolResult) *wire.ToolResult { return &wire.ToolResult{} })
}
