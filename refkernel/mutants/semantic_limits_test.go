package mutants

import (
	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/loop"
)

// State kept for the root only (issue 29, the tree sides of the bounds'
// clauses): a child's limit path or its own bound goes wrong while the
// root's is right.
//
// A child whose bound fires ends at once, with no final-answer turn, the
// way a loop that stops a sub-agent as soon as it is over budget does
// (TA-08.one-final-turn).
func init() {
	register(Mutant{Name: "semantic/child-limit-ends-at-once", Targets: []string{"TA-08"},
		Breaks: "a child or grandchild whose bound fires ends at once, without its final-answer turn",
		Apply: func(p loop.Parts) loop.Parts {
			return overStep(p, loop.StepContextAssemble, func(t *loop.Turn, run func(*loop.Turn) error) error {
				if t.Final != nil && isChild(t.Session.ID()) {
					t.End = true
					return nil
				}
				return run(t)
			})
		}})
}

// A child's own max_cost_usd is never compared: only the root's cost bound
// fires, the way a loop that budgets the top-level run only does
// (TA-03.cap, tree side). TA-07's checks of the budget a child inherits
// see it too; this mutant is judged on TA-03's own.
func init() {
	register(Mutant{Name: "semantic/child-cost-cap-ignored", Targets: []string{"TA-03"},
		Breaks: "a child or grandchild's own max_cost_usd never fires; only the root's cost bound is compared",
		Apply: func(p loop.Parts) loop.Parts {
			return overStep(p, loop.StepBounds, func(t *loop.Turn, run func(*loop.Turn) error) error {
				err := run(t)
				if f := t.Fired; f != nil && f.Bound == bounds.MaxCostUSD && isChild(t.Session.ID()) {
					t.Fired = nil
				}
				return err
			})
		}})
}
