package mutants

import (
	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// One side of a condition (issue 29, TA-21.subtype, another bound): the
// limit path ends every session with error_max_turns, the status of the
// one bound a loop had before it grew others. A session that max_turns
// ended is reported right.
func init() {
	register(Mutant{Name: "semantic/limit-status-always-turns", Targets: []string{"TA-21"},
		Breaks: "a session the cost or wall-clock bound ended is reported error_max_turns",
		Apply: func(p loop.Parts) loop.Parts {
			return overStep(p, loop.StepBounds, func(t *loop.Turn, run func(*loop.Turn) error) error {
				err := run(t)
				if f := t.Fired; f != nil && (f.Bound == bounds.MaxCostUSD || f.Bound == bounds.MaxWallClock) {
					g := *f
					g.Status = wire.StatusErrorMaxTurns
					t.Fired = &g
				}
				return err
			})
		}})
}
