package steps

import (
	"fmt"

	"github.com/agentconform/conform/spec/wire"
)

// TA-06: "The kernel itself derives cost_usd for every usage event from the
// model's advertised ModelSpec.pricing". A cost/usage report says which
// model it priced (PROTOCOL.md §8.2, `model`, required): a figure that
// names no model, or another one, is not tied to the pricing it came from.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^every cost report names the model whose reply it priced$`), s.proves(s.costReportsNameModel, "TA-06"))
	})
}

// costReportsNameModel pairs each usage event with its report, in order
// (as costsMatchPricing does), and wants the report to name the model the
// priced reply's model/stream request named; a request that named none
// falls back to the configured model. A missing report is the per-event
// figure's business (costsMatchPricing), not this check's.
func (s *Scenario) costReportsNameModel() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	sent, got := s.sentUsages(), s.rootCosts()
	if len(sent) == 0 {
		return scenarioDefect("the check reads the model of cost reports, but the fake model sent no usage event")
	}
	if len(got) == 0 {
		return notReached("the kernel sent no cost report, so none could name its model (the missing reports are judged where each event's cost is)")
	}
	for i, su := range sent {
		if i >= len(got) {
			break
		}
		want := s.Cfg.Model.Name
		if p, ok := su.request.Value.(wire.ModelStreamParams); ok && p.Model != "" {
			want = p.Model
		}
		if got[i].Model != want {
			return fmt.Errorf("cost report %d names the model %q, but the reply it priced (model request %d, #%d) came from the model %q",
				i+1, got[i].Model, su.nth, su.request.Seq, want)
		}
	}
	return nil
}
