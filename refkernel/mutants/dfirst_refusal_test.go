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
// which is all the shared denial rule asks. This mutant is that kernel:
// the refused call's result is empty and has no is_error.
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
	type saved struct {
		c   *loop.Call
		old *wire.ToolResult
	}
	var keep []saved
	for _, c := range t.ToolCalls() {
		if c.Result == nil || !c.Executed || c.Result.ErrorCategory != wire.ToolErrPermissionDenied {
			continue
		}
		keep = append(keep, saved{c, c.Result})
		c.Result = &wire.ToolResult{}
	}
	return func() {
		for _, k := range keep {
			k.c.Result = k.old
		}
	}
}
