package mutants

import (
	"errors"
	"slices"
	"time"

	"github.com/agentconform/conform/refkernel/cost"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// One side of the time window (issue 29, TA-25): a tier's effective_from is
// ignored, its effective_until kept, and the last tier that matches wins,
// the way a loop that keeps "the newest price list" picks a tier announced
// for later. The ended-tier scenario cannot tell: its later tier is the
// one in force.
func init() {
	register(Mutant{Name: "semantic/tier-start-ignored", Targets: []string{"TA-25"},
		Breaks: "a tier counts from the start of time whatever its effective_from, and the last tier that matches wins: a tier announced for later prices today",
		Apply: func(p loop.Parts) loop.Parts {
			p.Cost = startless{}
			return p
		}})
}

type startless struct{ cost.Standard }

func (startless) Cost(p wire.Pricing, u wire.Usage, at time.Time) (cost.Charge, error) {
	if p.Free {
		return cost.Charge{}, nil
	}
	for i, t := range slices.Backward(p.Tiers) {
		t.EffectiveFrom = ""
		one := wire.Pricing{Currency: p.Currency, Tiers: []wire.PricingTier{t}}
		if _, err := cost.Select(one, at, u.InputTokens); err == nil {
			return cost.Charge{USD: cost.Formula(t, u), Tier: i}, nil
		}
	}
	return cost.Charge{}, errors.New("no tier")
}
