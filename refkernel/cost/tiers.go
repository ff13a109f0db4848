package cost

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

// window is a tier's two half-open ranges with absent bounds made explicit.
type window struct {
	from, until time.Time // zero: open on that side
	nFrom       int64
	nUntil      int64 // math.MaxInt64: open
}

func (w window) contains(t time.Time, n int64) bool {
	if !w.from.IsZero() && t.Before(w.from) {
		return false
	}
	if !w.until.IsZero() && !t.Before(w.until) {
		return false
	}
	return n >= w.nFrom && n < w.nUntil
}

func windows(tiers []wire.PricingTier) ([]window, error) {
	ws := make([]window, len(tiers))
	for i, t := range tiers {
		w := window{nFrom: math.MinInt64, nUntil: math.MaxInt64}
		var err error
		if w.from, err = parseTime(t.EffectiveFrom); err != nil {
			return nil, fmt.Errorf("tier %d effective_from: %w", i, err)
		}
		if w.until, err = parseTime(t.EffectiveUntil); err != nil {
			return nil, fmt.Errorf("tier %d effective_until: %w", i, err)
		}
		if t.InputTokensFrom != nil {
			w.nFrom = *t.InputTokensFrom
		}
		if t.InputTokensUntil != nil {
			w.nUntil = *t.InputTokensUntil
		}
		if !w.from.IsZero() && !w.until.IsZero() && !w.from.Before(w.until) {
			return nil, fmt.Errorf("tier %d has an empty time window", i)
		}
		if w.nFrom >= w.nUntil {
			return nil, fmt.Errorf("tier %d has an empty input_tokens window", i)
		}
		ws[i] = w
	}
	return ws, nil
}

func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	return time.Parse(time.RFC3339Nano, s)
}

// Validate checks that every (time, input_tokens) point, tokens counted from
// zero, is matched by exactly one tier. It samples one point per cell of the
// grid the tier boundaries cut the plane into: inside a cell every tier
// either matches all points or none, so the samples find every overlap and
// every gap.
func Validate(p wire.Pricing) error {
	if p.Currency != "" && !strings.EqualFold(p.Currency, "USD") {
		return fmt.Errorf("pricing currency %q is not USD", p.Currency)
	}
	if p.Free {
		return nil
	}
	if len(p.Tiers) == 0 {
		return errors.New("pricing is not free but declares no tiers")
	}
	ws, err := windows(p.Tiers)
	if err != nil {
		return err
	}
	for _, t := range timeSamples(ws) {
		for _, n := range tokenSamples(ws) {
			var hits []int
			for i, w := range ws {
				if w.contains(t, n) {
					hits = append(hits, i)
				}
			}
			switch {
			case len(hits) == 0:
				return fmt.Errorf("pricing tiers leave a gap at input_tokens=%d%s", n, at(t))
			case len(hits) > 1:
				return fmt.Errorf("pricing tiers %v overlap at input_tokens=%d%s", hits, n, at(t))
			}
		}
	}
	return nil
}

func at(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " at " + t.Format(time.RFC3339Nano)
}

// timeSamples returns one instant per cell of the time axis: just before the
// first boundary, then each boundary itself (windows start inclusive).
func timeSamples(ws []window) []time.Time {
	var bs []time.Time
	for _, w := range ws {
		for _, b := range []time.Time{w.from, w.until} {
			if !b.IsZero() {
				bs = append(bs, b)
			}
		}
	}
	if len(bs) == 0 {
		return []time.Time{{}} // every tier is open in time; any instant will do
	}
	slices.SortFunc(bs, func(a, b time.Time) int { return a.Compare(b) })
	bs = slices.CompactFunc(bs, time.Time.Equal)
	return append([]time.Time{bs[0].Add(-time.Nanosecond)}, bs...)
}

// tokenSamples does the same for input_tokens, whose domain starts at zero.
func tokenSamples(ws []window) []int64 {
	bs := []int64{0}
	for _, w := range ws {
		for _, b := range []int64{w.nFrom, w.nUntil} {
			if b > 0 && b != math.MaxInt64 {
				bs = append(bs, b)
			}
		}
	}
	slices.Sort(bs)
	return slices.Compact(bs)
}
