package steps

import (
	"fmt"
	"math"
	"strings"
)

// Cost invariants of the generated sessions, one requirement each: a
// reported cost that is the formula's value at another tier than the one
// holding the event is a wrong tier (TA-25); any other wrong figure is a
// wrong formula (TA-24). That each event is reported, and in time, is
// TA-23's check (costReportedBeforeNextTurn); that the reports add up,
// TA-06's (costsAddUp).

// costMismatch is one usage event whose reported cost is not the expected
// one, with the tier the reported figure belongs to (-1: none).
type costMismatch struct {
	su        sentUsage
	got, want float64
	tier      int // the tier that should have priced it
	asTier    int // a tier whose formula gives the reported figure; -1 if none
}

// costMismatches pairs each usage event with its report, in order; events
// the kernel never reported are TA-23's and left out here.
func (s *Scenario) costMismatches() []costMismatch {
	sent, got := s.sentUsages(), s.rootCosts()
	p := s.Cfg.Model.Pricing
	var out []costMismatch
	for i, su := range sent {
		if i >= len(got) {
			break
		}
		want, tier, ok := ExpectedCost(p, su.usage, su.request.End)
		if !ok || math.Abs(got[i].CostUSD-want) <= costTolerance {
			continue
		}
		m := costMismatch{su: su, got: got[i].CostUSD, want: want, tier: tier, asTier: -1}
		if !p.Free {
			for j, t := range p.Tiers {
				if j != tier && math.Abs(tierCost(t, su.usage)-m.got) <= costTolerance {
					m.asTier = j
					break
				}
			}
		}
		out = append(out, m)
	}
	return out
}

func (s *Scenario) pricedAtTier() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if len(s.sentUsages()) == 0 || len(s.rootCosts()) == 0 {
		return notReached("no usage event was reported")
	}
	var bad []string
	for _, m := range s.costMismatches() {
		switch {
		case s.Cfg.Model.Pricing.Free:
			bad = append(bad, fmt.Sprintf("model request %d's usage {%s} costs $0 on a free model, the kernel reported $%s", m.su.nth, usageText(m.su.usage), usd(m.got)))
		case m.asTier >= 0:
			bad = append(bad, fmt.Sprintf("model request %d's usage {%s} falls in tier %d ($%s), the kernel priced it at tier %d ($%s)", m.su.nth, usageText(m.su.usage), m.tier, usd(m.want), m.asTier, usd(m.got)))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "\n"))
	}
	return nil
}

func (s *Scenario) pricedByFormula() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if len(s.sentUsages()) == 0 || len(s.rootCosts()) == 0 {
		return notReached("no usage event was reported")
	}
	var bad []string
	for _, m := range s.costMismatches() {
		if m.asTier < 0 && !s.Cfg.Model.Pricing.Free {
			bad = append(bad, fmt.Sprintf("model request %d's usage {%s} costs $%s at its tier %d by the formula, the kernel reported $%s", m.su.nth, usageText(m.su.usage), usd(m.want), m.tier, usd(m.got)))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "\n"))
	}
	return nil
}
