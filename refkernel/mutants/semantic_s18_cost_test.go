package mutants

import (
	"sync"

	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// A cost report that does not name the model it priced (TA-06, PROTOCOL.md
// §8.2: cost/usage `model`, required). The figures stay right, so every
// earlier TA-06 check, which read the costs and their sums, passed:
//
//   - the row built from the usage event alone, which names no model:
//     model is "" (a string still, as the schema asks);
//   - the row naming the session's profile, the name the session was
//     configured by, instead of the model its request named.
//
// The model-naming check of commit af8c104 kills both.
func init() {
	register(
		Mutant{Name: "semantic/s18-cost-report-without-model", Targets: []string{"TA-06"},
			Breaks: "each cost/usage report is built from the usage event alone: its model is empty",
			Apply: func(p loop.Parts) loop.Parts {
				p.Ledger = renamedModel(func(wire.CostUsage) string { return "" })
				return p
			}},
		Mutant{Name: "semantic/s18-cost-report-names-profile", Targets: []string{"TA-06"},
			Breaks:    "each cost/usage report names the session's profile as its model, not the model the priced request named",
			PerKernel: true,
			Apply: func(p loop.Parts) loop.Parts {
				var profiles sync.Map // session id → profile
				p.Steps = wrapStep(p.Steps, loop.StepContextAssemble, func(t *loop.Turn) error {
					profiles.Store(t.CallContext.SessionID, t.Config().Profile)
					return nil
				})
				p.Ledger = renamedModel(func(c wire.CostUsage) string {
					profile, _ := profiles.Load(c.SessionID)
					s, _ := profile.(string)
					return s
				})
				return p
			}},
	)
}

// renamedModel reports each priced event at once, as the reference
// does, with the model name model gives it.
type renamedModel func(wire.CostUsage) string

func (r renamedModel) Report(n host.Notifier, c wire.CostUsage) {
	c.Model = r(c)
	n.Notify(wire.NotifyCostUsage, c)
}
