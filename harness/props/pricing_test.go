package props

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/spec/wire"
)

// A price list is valid when every (receipt time, input_tokens) point,
// tokens counted from zero, is matched by exactly one tier; the kernel
// refuses any other before the session starts (TA-25). The lists are drawn
// from a few boundaries so that gaps and overlaps are frequent, every
// window is non-empty, some sides are open, and the tiers come in any
// order. The oracle is brute force over a grid that holds every boundary,
// a point inside every cell between two boundaries and a point beyond
// each end: inside a cell every tier matches all points or none.

var (
	priceYears  = []int{2000, 2001, 2002}
	priceTokens = []int64{0, 1, 2, 100}
)

type priceWindow struct {
	from, until int   // years, 0: open
	nFrom       int64 // -1: open
	nUntil      int64 // -1: open
}

var priceLists = rapid.Custom(func(t *rapid.T) []priceWindow {
	var ws []priceWindow
	for range rapid.IntRange(1, 3).Draw(t, "tiers") {
		var w priceWindow
		years := append([]int{0}, priceYears...)
		w.from = rapid.SampledFrom(years).Draw(t, "from")
		w.until = rapid.SampledFrom(years).Draw(t, "until")
		if w.from != 0 && w.until != 0 && w.from >= w.until {
			w.until = 0 // keep the window non-empty: an empty one is refused for its own sake
		}
		tokens := append([]int64{-1}, priceTokens...)
		w.nFrom = rapid.SampledFrom(tokens).Draw(t, "nfrom")
		w.nUntil = rapid.SampledFrom(tokens).Draw(t, "nuntil")
		if w.nUntil == 0 || (w.nFrom >= 0 && w.nUntil >= 0 && w.nFrom >= w.nUntil) {
			w.nUntil = -1
		}
		ws = append(ws, w)
	}
	return ws
})

func (w priceWindow) holds(year float64, n float64) bool {
	return (w.from == 0 || year >= float64(w.from)) && (w.until == 0 || year < float64(w.until)) &&
		(w.nFrom < 0 || n >= float64(w.nFrom)) && (w.nUntil < 0 || n < float64(w.nUntil))
}

// defect is the first grid point matched by no tier or by several, "" when
// there is none: every boundary, a point inside each cell between two
// boundaries and one beyond each end (token counts are integers from 0).
func defect(ws []priceWindow) string {
	years := []float64{1999}
	for _, y := range priceYears {
		years = append(years, float64(y), float64(y)+0.5)
	}
	tokens := []float64{0, 1, 2, 3, 50, 100, 1000}
	for _, y := range years {
		for _, n := range tokens {
			hits := 0
			for _, w := range ws {
				if w.holds(y, n) {
					hits++
				}
			}
			if hits != 1 {
				return fmt.Sprintf("%d tiers match year %v, input_tokens %v", hits, y, n)
			}
		}
	}
	return ""
}

func (w priceWindow) tier(i int) wire.PricingTier {
	t := wire.PricingTier{InputPerMtok: float64(i + 1), OutputPerMtok: float64(i + 1)}
	if w.from != 0 {
		t.EffectiveFrom = fmt.Sprintf("%d-01-01T00:00:00Z", w.from)
	}
	if w.until != 0 {
		t.EffectiveUntil = fmt.Sprintf("%d-01-01T00:00:00Z", w.until)
	}
	if w.nFrom >= 0 {
		v := w.nFrom
		t.InputTokensFrom = &v
	}
	if w.nUntil >= 0 {
		v := w.nUntil
		t.InputTokensUntil = &v
	}
	return t
}

func TestPriceListsRefusedExactlyWhenAPointIsNotPricedOnce(t *testing.T) {
	k := startKernel(t)
	n := 0
	rapid.Check(t, func(t *rapid.T) {
		ws := priceLists.Draw(t, "price list")
		n++
		var tiers []wire.PricingTier
		for i, w := range ws {
			tiers = append(tiers, w.tier(i))
		}
		w := fakes.NewWorld()
		defer w.Close()
		defer k.Unregister(w)
		w.Model.On(1, fakes.Reply{Text: "Priced."})
		w.Model.SetUsage(1, wire.Usage{InputTokens: 1, OutputTokens: 1})
		maxTurns := 2
		cfg := wire.SessionConfig{
			Profile: "props", WorkingDirectory: "/conform/props",
			Bounds: wire.Bounds{MaxTurns: &maxTurns},
			Hooks:  wire.Hooks{DefaultTimeoutMS: 2000, Subscribers: []wire.Subscriber{}},
			Model: wire.ModelSpec{Name: "fake-model", SupportsToolUse: true,
				Pricing: wire.Pricing{Currency: "USD", Tiers: tiers}},
			Tools: []wire.ToolSchema{},
		}
		_, err := k.Run(context.Background(), w, wire.RunParams{SessionID: fmt.Sprintf("price-%d", n), Prompt: "Go.", Config: cfg}, 20*time.Second)
		var rej *driver.ConfigRejected
		refused := errors.As(err, &rej)
		if err != nil && !refused {
			t.Fatalf("the kernel faulted on %+v: %v", ws, err)
		}
		switch why := defect(ws); {
		case why != "" && !refused:
			t.Fatalf("the price list %+v (years; 0 open; tokens -1 open) leaves a point unpriced or priced twice (%s), yet the kernel accepted it", ws, why)
		case why == "" && refused:
			t.Fatalf("the price list %+v (years; 0 open; tokens -1 open) prices every point exactly once, yet the kernel refused it: %s", ws, rej.Message)
		}
	})
}
