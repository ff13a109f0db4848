package cost

import (
	"fmt"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

// Charge is the price of one usage event and the index of the tier used.
type Charge struct {
	USD  float64
	Tier int
}

// Calculator is the swappable pricing part. Both methods are pure.
type Calculator interface {
	// Validate refuses a price list that cannot price every event.
	Validate(p wire.Pricing) error
	// Cost prices one usage event received at the given time.
	Cost(p wire.Pricing, u wire.Usage, at time.Time) (Charge, error)
}

// Standard is the reference calculator.
type Standard struct{}

// Validate implements Calculator.
func (Standard) Validate(p wire.Pricing) error { return Validate(p) }

// Cost implements Calculator.
func (Standard) Cost(p wire.Pricing, u wire.Usage, at time.Time) (Charge, error) {
	if p.Free {
		return Charge{}, nil
	}
	i, err := Select(p, at, u.InputTokens)
	if err != nil {
		return Charge{}, err
	}
	return Charge{USD: Formula(p.Tiers[i], u), Tier: i}, nil
}

// Formula prices usage at one tier's rates.
func Formula(t wire.PricingTier, u wire.Usage) float64 {
	perToken := func(n int64, perMtok float64) float64 { return float64(n) * perMtok / 1e6 }
	return perToken(u.InputTokens, t.InputPerMtok) +
		perToken(u.OutputTokens, t.OutputPerMtok) +
		perToken(deref(u.CacheReadTokens), rate(t.CacheReadPerMtok)) +
		perToken(deref(u.CacheWriteTokens), rate(t.CacheWritePerMtok)) +
		// Reasoning is its own counter, never carved out of output, but it
		// is billed at the output rate.
		perToken(deref(u.ReasoningTokens), t.OutputPerMtok)
}

// Select returns the index of the one tier matching the receipt time and
// input token count.
func Select(p wire.Pricing, at time.Time, inputTokens int64) (int, error) {
	ws, err := windows(p.Tiers)
	if err != nil {
		return 0, err
	}
	found := -1
	for i, w := range ws {
		if !w.contains(at, inputTokens) {
			continue
		}
		if found >= 0 {
			return 0, fmt.Errorf("pricing tiers %d and %d both match input_tokens=%d at %s", found, i, inputTokens, at.Format(time.RFC3339))
		}
		found = i
	}
	if found < 0 {
		return 0, fmt.Errorf("no pricing tier matches input_tokens=%d at %s", inputTokens, at.Format(time.RFC3339))
	}
	return found, nil
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func rate(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
