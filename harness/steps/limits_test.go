package steps

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

func i64(v int64) *int64     { return &v }
func f64(v float64) *float64 { return &v }

// The harness's own pricing (§3.2): the example of TA-24 and the boundary
// of TA-25.
func TestExpectedCost(t *testing.T) {
	all := wire.Pricing{Tiers: []wire.PricingTier{{InputPerMtok: 3, OutputPerMtok: 15, CacheReadPerMtok: f64(0.3), CacheWritePerMtok: f64(3.75)}}}
	u := wire.Usage{InputTokens: 1e6, OutputTokens: 2e5, CacheReadTokens: i64(5e5), CacheWriteTokens: i64(1e5), ReasoningTokens: i64(5e4)}
	if got, _, ok := ExpectedCost(all, u, time.Now()); !ok || math.Abs(got-7.275) > 1e-12 {
		t.Fatalf("got %v %v", got, ok)
	}
	split := wire.Pricing{Tiers: []wire.PricingTier{
		{InputTokensUntil: i64(200000), InputPerMtok: 1, OutputPerMtok: 2},
		{InputTokensFrom: i64(200000), InputPerMtok: 2, OutputPerMtok: 4},
	}}
	for n, tier := range map[int64]int{199999: 0, 200000: 1, 0: 0} {
		if _, got, ok := ExpectedCost(split, wire.Usage{InputTokens: n}, time.Now()); !ok || got != tier {
			t.Errorf("%d input tokens: tier %d %v, want %d", n, got, ok, tier)
		}
	}
	timed := wire.Pricing{Tiers: []wire.PricingTier{
		{EffectiveUntil: "2001-01-01T00:00:00Z", InputPerMtok: 100, OutputPerMtok: 100},
		{EffectiveFrom: "2001-01-01T00:00:00Z", InputPerMtok: 1, OutputPerMtok: 2},
	}}
	if got, tier, ok := ExpectedCost(timed, wire.Usage{InputTokens: 1000, OutputTokens: 100}, time.Now()); !ok || tier != 1 || math.Abs(got-0.0012) > 1e-12 {
		t.Errorf("timed: %v %v %v", got, tier, ok)
	}
	overlap := wire.Pricing{Tiers: []wire.PricingTier{{InputPerMtok: 1}, {InputPerMtok: 2}}}
	if _, _, ok := ExpectedCost(overlap, wire.Usage{}, time.Now()); ok {
		t.Error("two matching tiers priced an event")
	}
	if got, _, ok := ExpectedCost(wire.Pricing{Free: true}, u, time.Now()); !ok || got != 0 {
		t.Errorf("free: %v %v", got, ok)
	}
}

// The harness's doom-loop identity: key order and whitespace do not
// matter, values do.
func TestCallHash(t *testing.T) {
	a := callHash("s", json.RawMessage(`{"q":"a","f":{"x":1,"y":[1,2]}}`))
	for in, same := range map[string]bool{
		`{ "f": {"y":[1,2], "x":1}, "q":"a" }`: true,
		`{"q":"b","f":{"x":1,"y":[1,2]}}`:      false,
		`{"q":"a","f":{"x":1,"y":[2,1]}}`:      false,
		`{"q":"a","f":{"x":2,"y":[1,2]}}`:      false,
	} {
		if got := callHash("s", json.RawMessage(in)) == a; got != same {
			t.Errorf("%s: same = %v", in, got)
		}
	}
	if callHash("t", json.RawMessage(`{"q":"a","f":{"x":1,"y":[1,2]}}`)) == a {
		t.Error("the tool name is not part of the identity")
	}
	if tailRun([]string{"a", "b", "b", "b"}) != 3 || tailRun(nil) != 0 {
		t.Error("tailRun")
	}
}

func TestParseUsage(t *testing.T) {
	u, err := parseUsage("1000000 input, 200000 output, 500000 cache read, 100000 cache write and 50000 reasoning tokens")
	if err != nil || u.InputTokens != 1e6 || u.OutputTokens != 2e5 || *u.CacheReadTokens != 5e5 || *u.CacheWriteTokens != 1e5 || *u.ReasoningTokens != 5e4 {
		t.Fatalf("%+v %v", u, err)
	}
	u, err = parseUsage("7 input and 0 output tokens")
	if err != nil || u.InputTokens != 7 || u.CacheReadTokens != nil || u.ReasoningTokens != nil {
		t.Fatalf("%+v %v", u, err)
	}
	if _, err := parseUsage("lots of tokens"); err == nil {
		t.Error("accepted nonsense")
	}
}
