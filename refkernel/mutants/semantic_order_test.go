package mutants

import "github.com/agentconform/conform/refkernel/loop"

// State kept for the root only (issue 29, TA-01.step-order, tree side): a
// sub-agent starts from its prompt alone, so a loop that skips context
// assembly for sub-agents ("nothing to assemble") runs every child turn
// without its step 1. The root's turns keep the documented order.
func init() {
	register(Mutant{Name: "semantic/child-skips-context-assemble", Targets: []string{"TA-01"},
		Breaks: "a child or grandchild's turns skip step 1: no context/assemble request before their model request",
		Apply: func(p loop.Parts) loop.Parts {
			return overStep(p, loop.StepContextAssemble, func(t *loop.Turn, run func(*loop.Turn) error) error {
				if isChild(t.Session.ID()) {
					return nil
				}
				return run(t)
			})
		}})
}
