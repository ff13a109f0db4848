package mutants

import (
	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/loop"
)

// State kept for the root only (issue 29, TA-04.wall-clock, tree side): the
// deadline is watched for the top-level run only, so a child whose turn
// crosses its max_wall_clock_s runs on. The root's bound fires as it
// should.
func init() {
	register(Mutant{Name: "semantic/child-wall-clock-ignored", Targets: []string{"TA-04"},
		Breaks: "a child or grandchild's max_wall_clock_s never fires; only the root's deadline is watched",
		Apply: func(p loop.Parts) loop.Parts {
			return overStep(p, loop.StepBounds, func(t *loop.Turn, run func(*loop.Turn) error) error {
				err := run(t)
				if f := t.Fired; f != nil && f.Bound == bounds.MaxWallClock && isChild(t.Session.ID()) {
					t.Fired = nil
				}
				return err
			})
		}})
}
