package fuzz

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"pgregory.net/rapid"

	"github.com/agentconform/conform/harness/steps"
	"github.com/agentconform/conform/spec/wire"
)

// Case is one generated session: the tools, bounds, doom-loop threshold,
// price list and per-request model script. It is plain data; Feature turns
// it into a scenario of the step library.
type Case struct {
	Hooks       bool // an observe subscriber at every hook point
	Interactive bool // the interactive tool "ask" is declared
	Terminal    bool // the terminal resource "finish" is declared
	Wait        *Hold
	// Slow puts a call to the data_source "slow", held slowHoldMS, first
	// in the first reply that has calls: with a wall-clock bound of a
	// microsecond, the bound is then spent at step 17 of that turn by
	// construction, whatever the machine's speed (the judge allows either
	// ending within a millisecond of the bound, so an unheld turn that
	// ran faster than that leaves the bound's firing open).
	Slow       bool
	MaxTurns   int
	MaxCostUSD *float64
	WallClockS *float64
	Threshold  *int
	Pricing    wire.Pricing
	Replies    []Reply // the answer to model request i+1
	// Telemetry keeps the session's telemetry on (the step library's
	// default). It is on in a quarter of the cases: no invariant reads a
	// span, and the spans were nearly half the messages of a session and a
	// fifth of its CPU (issue 25), while a kernel whose loop changes when
	// it exports spans is still searched.
	Telemetry bool
}

// Hold keeps the data_source "wait" in flight until HoldS seconds after the
// session started: a turn that calls it has a known minimum length.
type Hold struct{ HoldS float64 }

// Reply is one scripted model answer.
type Reply struct {
	Text  string // set for a reply without tool calls
	Calls []Call
	Usage wire.Usage
}

// Call is one tool call; Input is raw JSON with its keys in the order
// generated (key order must not matter to the doom-loop hash).
type Call struct {
	Tool  string
	Input string
}

// Capabilities narrows what a case may use to what the kernel declares, so
// that a generated scenario is never skipped.
type Capabilities struct {
	CostBound      bool // bound.max_cost_usd
	WallClockBound bool // bound.max_wall_clock_s
	// RealTime allows wall-clock cases that take real time (a held tool
	// and a bound of a tenth of a second or so). Without it the wall-clock
	// bound is either far away or so small that it has run out by the end
	// of the first turn, which costs no time at all.
	RealTime bool
}

// CapabilitiesOf reads the kernel's declared capabilities.
func CapabilitiesOf(info wire.InitializeResult, realTime bool) Capabilities {
	return Capabilities{
		CostBound:      slices.Contains(info.Capabilities, "bound.max_cost_usd"),
		WallClockBound: slices.Contains(info.Capabilities, "bound.max_wall_clock_s"),
		RealTime:       realTime,
	}
}

// slowHoldMS is how long every call to "slow" is held: ten times the
// judge's wall-clock tolerance (wallTolerance in harness/steps).
const slowHoldMS = 10

// Values the generator draws from. Small pools make repeated calls, equal
// costs and tier boundaries likely.
var (
	inputTokens  = []int64{0, 1, 999, 1000, 150000, 199999, 200000, 200001, 400000}
	outputTokens = []int64{0, 1, 100, 5000, 40000}
	reasoning    = []int64{-1, 0, 30, 2500} // -1: absent
	cacheTokens  = []int64{-1, 0, 700, 120000}
	rates        = []float64{0, 0.25, 1, 3, 15}
	queries      = []string{"a", "b", "c"}
)

// Generate draws a case.
func Generate(t *rapid.T, caps Capabilities) Case {
	c := Case{
		Hooks:       rapid.Bool().Draw(t, "hooks"),
		Interactive: rapid.Bool().Draw(t, "interactive"),
		Terminal:    rapid.IntRange(0, 3).Draw(t, "terminal") == 3,
		MaxTurns:    rapid.IntRange(1, 6).Draw(t, "max_turns"),
	}
	if rapid.Bool().Draw(t, "custom_threshold") {
		th := rapid.IntRange(3, 5).Draw(t, "threshold")
		c.Threshold = &th
	}
	caching := rapid.Bool().Draw(t, "caching")
	c.Pricing = genPricing(t, caching)

	if caps.WallClockBound {
		switch kind := rapid.IntRange(0, 3).Draw(t, "wall_clock"); {
		case kind == 1:
			c.WallClockS = ptr(600.0) // far away: never fires
		case kind == 2:
			c.WallClockS = ptr(0.000001) // spent by the end of the first turn
			c.Slow = true
		case kind == 3 && caps.RealTime:
			c.WallClockS = ptr(rapid.SampledFrom([]float64{0.05, 0.1}).Draw(t, "wall_clock_s"))
			c.Wait = &Hold{HoldS: rapid.SampledFrom([]float64{0.03, 0.08, 0.15}).Draw(t, "hold_s")}
		}
	}

	tools := []string{"read", "read", "write", "write"}
	if c.Interactive {
		tools = append(tools, "ask")
	}
	if c.Wait != nil {
		tools = append(tools, "wait")
	}
	slow := c.Slow
	var prev []Call
	n := c.MaxTurns + 1
	for i := 0; i < n; i++ {
		r := Reply{Usage: genUsage(t, caching)}
		if rapid.IntRange(0, 7).Draw(t, "text_only") == 0 {
			r.Text = fmt.Sprintf("Reply %d without tool calls.", i+1)
		} else {
			for k := rapid.IntRange(1, 3).Draw(t, "calls"); k > 0; k-- {
				var call Call
				if len(prev) > 0 && rapid.Bool().Draw(t, "repeat") {
					call = reorder(t, prev[len(prev)-1])
				} else {
					tool := rapid.SampledFrom(tools).Draw(t, "tool")
					if c.Terminal && rapid.IntRange(0, 9).Draw(t, "finish") == 9 {
						tool = "finish"
					}
					call = genCall(t, tool)
				}
				r.Calls = append(r.Calls, call)
				prev = append(prev, call)
			}
			if slow {
				r.Calls = append([]Call{{Tool: "slow", Input: `{"q":"a"}`}}, r.Calls...)
				slow = false
			}
		}
		c.Replies = append(c.Replies, r)
	}

	if caps.CostBound && rapid.Bool().Draw(t, "cost_bound") {
		c.MaxCostUSD = genCostBound(t, c)
	}
	// Drawn last, so every other draw of a seed is what it was before the
	// draw existed; shrinking turns it off.
	c.Telemetry = rapid.IntRange(0, 3).Draw(t, "telemetry") == 3
	return c
}

func ptr[T any](v T) *T { return &v }

func genPricing(t *rapid.T, caching bool) wire.Pricing {
	tier := func(label string) wire.PricingTier {
		pt := wire.PricingTier{
			InputPerMtok:  rapid.SampledFrom(rates).Draw(t, label+"_input"),
			OutputPerMtok: rapid.SampledFrom(rates).Draw(t, label+"_output"),
		}
		if caching {
			pt.CacheReadPerMtok = ptr(rapid.SampledFrom(rates).Draw(t, label+"_cache_read"))
			pt.CacheWritePerMtok = ptr(rapid.SampledFrom(rates).Draw(t, label+"_cache_write"))
		}
		return pt
	}
	p := wire.Pricing{Currency: "USD"}
	switch rapid.IntRange(0, 4).Draw(t, "pricing") {
	case 0:
		p.Tiers = []wire.PricingTier{tier("single")}
	case 1: // split at 200,000 input tokens (TA-25)
		lo, hi := tier("below"), tier("above")
		lo.InputTokensUntil, hi.InputTokensFrom = ptr(int64(200000)), ptr(int64(200000))
		p.Tiers = []wire.PricingTier{lo, hi}
	case 2: // three size tiers, listed out of order
		a, b, c := tier("small"), tier("medium"), tier("large")
		a.InputTokensUntil = ptr(int64(1000))
		b.InputTokensFrom, b.InputTokensUntil = ptr(int64(1000)), ptr(int64(200001))
		c.InputTokensFrom = ptr(int64(200001))
		p.Tiers = []wire.PricingTier{c, a, b}
	case 3: // an expired tier and the current one
		old, cur := tier("expired"), tier("current")
		old.EffectiveUntil = "2001-01-01T00:00:00Z"
		cur.EffectiveFrom = "2001-01-01T00:00:00Z"
		if rapid.Bool().Draw(t, "current_first") {
			p.Tiers = []wire.PricingTier{cur, old}
		} else {
			p.Tiers = []wire.PricingTier{old, cur}
		}
	default:
		p.Free, p.Tiers = true, []wire.PricingTier{}
	}
	return p
}

func genUsage(t *rapid.T, caching bool) wire.Usage {
	u := wire.Usage{
		InputTokens:  rapid.SampledFrom(inputTokens).Draw(t, "input_tokens"),
		OutputTokens: rapid.SampledFrom(outputTokens).Draw(t, "output_tokens"),
	}
	opt := func(pool []int64, label string) *int64 {
		if v := rapid.SampledFrom(pool).Draw(t, label); v >= 0 {
			return &v
		}
		return nil
	}
	u.ReasoningTokens = opt(reasoning, "reasoning_tokens")
	if caching {
		u.CacheReadTokens = opt(cacheTokens, "cache_read_tokens")
		u.CacheWriteTokens = opt(cacheTokens, "cache_write_tokens")
	}
	return u
}

// genCall draws arguments from a small pool: one or two keys.
func genCall(t *rapid.T, tool string) Call {
	q := rapid.SampledFrom(queries).Draw(t, "q")
	if rapid.IntRange(0, 2).Draw(t, "keys") == 0 {
		return Call{Tool: tool, Input: fmt.Sprintf(`{"q":%q}`, q)}
	}
	n := rapid.IntRange(1, 2).Draw(t, "n")
	if rapid.Bool().Draw(t, "n_first") {
		return Call{Tool: tool, Input: fmt.Sprintf(`{"n":%d,"q":%q}`, n, q)}
	}
	return Call{Tool: tool, Input: fmt.Sprintf(`{"q":%q,"n":%d}`, q, n)}
}

// reorder repeats a call, maybe with its two keys the other way round:
// the same call as far as the doom-loop hash goes.
func reorder(t *rapid.T, c Call) Call {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(c.Input), &m) != nil || len(m) != 2 || rapid.IntRange(0, 3).Draw(t, "keep_order") == 0 {
		return c
	}
	if strings.HasPrefix(c.Input, `{"q"`) {
		return Call{Tool: c.Tool, Input: fmt.Sprintf(`{"n":%s,"q":%s}`, m["n"], m["q"])}
	}
	return Call{Tool: c.Tool, Input: fmt.Sprintf(`{"q":%s,"n":%s}`, m["q"], m["n"])}
}

// genCostBound puts the cap strictly between two running totals of the
// script (or beyond the last one), so that no total is within a rounding
// error of it: which turn the bound fires at is then beyond doubt.
func genCostBound(t *rapid.T, c Case) *float64 {
	now := time.Now()
	totals := []float64{0}
	sum := 0.0
	for _, r := range c.Replies {
		usd, _, _ := steps.ExpectedCost(c.Pricing, r.Usage, now)
		sum += usd
		totals = append(totals, sum)
	}
	var gaps []float64
	for i := 1; i < len(totals); i++ {
		if totals[i]-totals[i-1] > 1e-6 {
			gaps = append(gaps, (totals[i-1]+totals[i])/2)
		}
	}
	gaps = append(gaps, sum+1)
	v := rapid.SampledFrom(gaps).Draw(t, "max_cost_usd")
	return &v
}
