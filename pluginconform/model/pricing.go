package model

import (
	"fmt"
	"math"
	"slices"
	"time"

	"pgregory.net/rapid"

	modelv1 "github.com/agentconform/conform/api/gen/pluggableharness/model/v1"
	"github.com/agentconform/conform/pluginconform/kit"
)

// checkPricing checks, for every priced model, that exactly one tier
// matches any (timestamp, input tokens) pair (MP-09): at every bound a
// tier declares, on both sides of it, and at generated pairs.
func (r *run) checkPricing() {
	s := r.rec.Scenario("model/pricing", "exactly one pricing tier matches", "MP-09")
	defer r.rec.Add(s)
	for _, m := range r.caps.GetModels() {
		tiers := m.GetPricing().GetTiers()
		step := fmt.Sprintf("model %q: exactly one of its %d pricing %s matches", m.GetId(), len(tiers), kit.Plural(len(tiers), "tier", "tiers"))
		if len(tiers) == 0 {
			if m.GetPricing().GetFree() {
				s.Pass(fmt.Sprintf("model %q is free and declares no tier", m.GetId()), "MP-09")
			}
			continue
		}
		msg := boundaryProblem(tiers)
		if msg == "" {
			times, tokens := points(tiers)
			res := kit.Property(r.opt.Cases, func(t *rapid.T) (kit.Verdicts, any, string, string) {
				ts := rapid.Custom(func(t *rapid.T) int64 {
					if rapid.Bool().Draw(t, "near a bound") && len(times) > 0 {
						return rapid.SampledFrom(times).Draw(t, "bound") + int64(rapid.IntRange(-2, 2).Draw(t, "offset"))
					}
					return rapid.Int64Range(0, 4102444800).Draw(t, "unix") // 1970..2100
				}).Draw(t, "timestamp")
				n := rapid.Custom(func(t *rapid.T) int64 {
					if rapid.Bool().Draw(t, "near a size") && len(tokens) > 0 {
						return max(0, rapid.SampledFrom(tokens).Draw(t, "size")+int64(rapid.IntRange(-2, 2).Draw(t, "offset")))
					}
					return rapid.Int64Range(0, 10_000_000).Draw(t, "tokens")
				}).Draw(t, "input tokens")
				return kit.Verdicts{"MP-09": matchProblem(tiers, ts, n)}, map[string]any{"timestamp": time.Unix(ts, 0).UTC().Format(time.RFC3339), "input_tokens": n}, "", ""
			})
			r.stats.GeneratedCalls += res.Calls
			if f, ok := res.Failed["MP-09"]; ok {
				msg = f.Msg + "; shrunk: " + kit.JSONText(f.Input)
			}
		}
		s.Check(step, msg, "MP-09")
	}
}

// points are the bounds the tiers declare, in unix seconds and tokens.
func points(tiers []*modelv1.PricingTier) (times, tokens []int64) {
	for _, t := range tiers {
		if t.EffectiveFrom != nil {
			times = append(times, t.GetEffectiveFrom().GetSeconds())
		}
		if t.EffectiveUntil != nil {
			times = append(times, t.GetEffectiveUntil().GetSeconds())
		}
		if t.InputTokensFrom != nil {
			tokens = append(tokens, t.GetInputTokensFrom())
		}
		if t.InputTokensUntil != nil {
			tokens = append(tokens, t.GetInputTokensUntil())
		}
	}
	return times, tokens
}

// boundaryProblem checks every pair of bounds: at each declared bound and
// one unit either side, for every other bound in the other dimension.
func boundaryProblem(tiers []*modelv1.PricingTier) string {
	times, tokens := points(tiers)
	ts := []int64{0}
	for _, t := range times {
		ts = append(ts, t-1, t, t+1)
	}
	ns := []int64{0, math.MaxInt64 - 1}
	for _, n := range tokens {
		ns = append(ns, max(0, n-1), n, n+1)
	}
	slices.Sort(ts)
	slices.Sort(ns)
	for _, t := range slices.Compact(ts) {
		for _, n := range slices.Compact(ns) {
			if msg := matchProblem(tiers, t, n); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// matchProblem says how many tiers match (ts, n) when that is not one.
func matchProblem(tiers []*modelv1.PricingTier, ts, n int64) string {
	var hit []int
	for i, t := range tiers {
		if t.EffectiveFrom != nil && ts < t.GetEffectiveFrom().GetSeconds() {
			continue
		}
		if t.EffectiveUntil != nil && ts >= t.GetEffectiveUntil().GetSeconds() {
			continue
		}
		if t.InputTokensFrom != nil && n < t.GetInputTokensFrom() {
			continue
		}
		if t.InputTokensUntil != nil && n >= t.GetInputTokensUntil() {
			continue
		}
		hit = append(hit, i+1)
	}
	if len(hit) == 1 {
		return ""
	}
	at := fmt.Sprintf("at %s with %d input tokens", time.Unix(ts, 0).UTC().Format(time.RFC3339), n)
	if len(hit) == 0 {
		return "no tier matches " + at + " (a gap)"
	}
	return fmt.Sprintf("tiers %v all match %s (an overlap)", hit, at)
}
