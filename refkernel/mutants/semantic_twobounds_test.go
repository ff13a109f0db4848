package mutants

import (
	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// One side of a condition (issue 29, TA-19.two-at-once): two bounds
// tripping at the same step 17 are taken for a conflict and the session
// ends failed after its final-answer turn, the way a loop that expects one
// reason to stop does. One bound alone takes the limit path as it should.
func init() {
	register(Mutant{Name: "semantic/two-bounds-fail", Targets: []string{"TA-19"},
		Breaks: "when max_turns and max_cost_usd trip at the same check the session ends failed",
		Apply: func(p loop.Parts) loop.Parts {
			p.Bounds = twoAtOnceFail{}
			return p
		}})
}

type twoAtOnceFail struct{ bounds.Standard }

func (twoAtOnceFail) Check(l wire.Bounds, s bounds.State) (bounds.Fired, bool) {
	f, ok := bounds.Standard{}.Check(l, s)
	if ok && !f.Soft && l.MaxTurns != nil && s.Turns >= *l.MaxTurns && l.MaxCostUSD != nil && s.CostUSD >= *l.MaxCostUSD {
		f.Status = wire.StatusFailed
	}
	return f, ok
}
