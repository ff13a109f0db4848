package mutants

import "github.com/agentconform/conform/refkernel/loop"

// State kept for the root only (issue 29, TA-26.limit-path, tree side):
// the doom-loop detector watches the top-level agent only, so a child
// that repeats one call runs on until its max_turns.
func init() {
	register(Mutant{Name: "semantic/child-no-doom-loop", Targets: []string{"TA-26"},
		Breaks: "the doom-loop detector runs in the root session only; a child or grandchild repeating one call is never stopped by it",
		Apply: func(p loop.Parts) loop.Parts {
			return overStep(p, loop.StepDoomLoop, func(t *loop.Turn, run func(*loop.Turn) error) error {
				if isChild(t.Session.ID()) {
					return nil
				}
				return run(t)
			})
		}})
}
