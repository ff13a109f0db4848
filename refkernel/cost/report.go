package cost

import (
	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/spec/wire"
)

// Reporter sends one priced usage event to the harness: the cost/usage
// notification, the wire form of a cost_ledger row.
type Reporter interface {
	Report(n host.Notifier, c wire.CostUsage)
}

// Immediate is the reference reporter: each event is reported the moment it
// is priced, so the report is out before the next turn starts (TA-23).
type Immediate struct{}

// Report implements Reporter.
func (Immediate) Report(n host.Notifier, c wire.CostUsage) { n.Notify(wire.NotifyCostUsage, c) }

// Weighted is the weighted-token refinement of one usage event (TA-05):
// output tokens at the sampling weight plus non-cached input tokens at the
// prefill weight. input_tokens is already the non-cached input: the cache
// counters are separate and never overlap it.
func Weighted(w wire.TokenWeights, u wire.Usage) float64 {
	return float64(u.OutputTokens)*w.SamplingTokenWeight + float64(u.InputTokens)*w.PrefillTokenWeight
}
