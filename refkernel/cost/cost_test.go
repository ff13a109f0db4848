package cost

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

func i64(v int64) *int64     { return &v }
func f64(v float64) *float64 { return &v }

var now = time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)

func TestFormula(t *testing.T) {
	tier := wire.PricingTier{
		InputPerMtok: 3, OutputPerMtok: 15,
		CacheReadPerMtok: f64(0.3), CacheWritePerMtok: f64(3.75),
	}
	cases := []struct {
		name string
		tier wire.PricingTier
		u    wire.Usage
		want float64
	}{
		{
			name: "all five counters, reasoning at the output rate",
			tier: tier,
			u: wire.Usage{InputTokens: 1_000_000, OutputTokens: 200_000,
				CacheReadTokens: i64(500_000), CacheWriteTokens: i64(100_000), ReasoningTokens: i64(50_000)},
			// 3 + 3 + 0.15 + 0.375 + 0.75
			want: 7.275,
		},
		{
			name: "absent counters add nothing",
			tier: tier,
			u:    wire.Usage{InputTokens: 1_000_000, OutputTokens: 200_000},
			want: 6,
		},
		{
			name: "cache tokens without cache rates cost nothing",
			tier: wire.PricingTier{InputPerMtok: 1, OutputPerMtok: 2},
			u:    wire.Usage{InputTokens: 400_000, CacheReadTokens: i64(1_000_000)},
			want: 0.4,
		},
		{
			name: "reasoning is not taken out of output",
			tier: wire.PricingTier{OutputPerMtok: 10},
			u:    wire.Usage{OutputTokens: 100_000, ReasoningTokens: i64(100_000)},
			want: 2,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Formula(c.tier, c.u); math.Abs(got-c.want) > 1e-9 {
				t.Fatalf("cost = %.12f, want %.12f", got, c.want)
			}
		})
	}
}

func TestCostSelectsTierAtTokenBoundary(t *testing.T) {
	p := wire.Pricing{Currency: "USD", Tiers: []wire.PricingTier{
		{InputTokensUntil: i64(200_000), InputPerMtok: 1},
		{InputTokensFrom: i64(200_000), InputPerMtok: 2},
	}}
	if err := (Standard{}).Validate(p); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		input int64
		tier  int
		usd   float64
	}{
		{0, 0, 0},
		{199_999, 0, 0.199999},
		{200_000, 1, 0.4},
		{1_000_000, 1, 2},
	}
	for _, c := range cases {
		got, err := (Standard{}).Cost(p, wire.Usage{InputTokens: c.input}, now)
		if err != nil {
			t.Fatal(err)
		}
		if got.Tier != c.tier || math.Abs(got.USD-c.usd) > 1e-9 {
			t.Errorf("input %d: got %+v, want tier %d, $%v", c.input, got, c.tier, c.usd)
		}
	}
}

func TestCostSelectsTierByReceiptTime(t *testing.T) {
	p := wire.Pricing{Tiers: []wire.PricingTier{
		{EffectiveUntil: "2001-01-01T00:00:00Z", InputPerMtok: 100},
		{EffectiveFrom: "2001-01-01T00:00:00Z", InputPerMtok: 1},
	}}
	if err := Validate(p); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at   time.Time
		tier int
	}{
		{now, 1},
		{time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC), 1},
		{time.Date(2000, 12, 31, 23, 59, 59, 0, time.UTC), 0},
	} {
		got, err := (Standard{}).Cost(p, wire.Usage{InputTokens: 1_000_000}, c.at)
		if err != nil {
			t.Fatal(err)
		}
		if got.Tier != c.tier {
			t.Errorf("at %v: tier %d, want %d", c.at, got.Tier, c.tier)
		}
	}
}

func TestFreeCostsNothing(t *testing.T) {
	p := wire.Pricing{Free: true}
	if err := Validate(p); err != nil {
		t.Fatal(err)
	}
	got, err := (Standard{}).Cost(p, wire.Usage{InputTokens: 5_000_000, OutputTokens: 1}, now)
	if err != nil || got.USD != 0 {
		t.Fatalf("got %+v, %v", got, err)
	}
}

func TestValidateRejects(t *testing.T) {
	cases := []struct {
		name, want string
		p          wire.Pricing
	}{
		{"no tiers", "no tiers", wire.Pricing{Currency: "USD"}},
		{"token overlap", "overlap", wire.Pricing{Tiers: []wire.PricingTier{
			{InputTokensUntil: i64(200_001)},
			{InputTokensFrom: i64(200_000)},
		}}},
		{"token gap", "gap", wire.Pricing{Tiers: []wire.PricingTier{
			{InputTokensUntil: i64(199_999)},
			{InputTokensFrom: i64(200_000)},
		}}},
		{"duplicate open tier", "overlap", wire.Pricing{Tiers: []wire.PricingTier{{}, {}}}},
		{"time gap", "gap", wire.Pricing{Tiers: []wire.PricingTier{
			{EffectiveUntil: "2020-01-01T00:00:00Z"},
			{EffectiveFrom: "2021-01-01T00:00:00Z"},
		}}},
		{"time overlap", "overlap", wire.Pricing{Tiers: []wire.PricingTier{
			{EffectiveUntil: "2022-01-01T00:00:00Z"},
			{EffectiveFrom: "2021-01-01T00:00:00Z"},
		}}},
		{"nothing before the first start", "gap", wire.Pricing{Tiers: []wire.PricingTier{
			{EffectiveFrom: "2021-01-01T00:00:00Z"},
		}}},
		{"tokens start above zero", "gap", wire.Pricing{Tiers: []wire.PricingTier{
			{InputTokensFrom: i64(1)},
		}}},
		{"bad time", "effective_from", wire.Pricing{Tiers: []wire.PricingTier{{EffectiveFrom: "yesterday"}}}},
		{"empty window", "empty", wire.Pricing{Tiers: []wire.PricingTier{{InputTokensFrom: i64(5), InputTokensUntil: i64(5)}}}},
		{"currency", "currency", wire.Pricing{Currency: "EUR", Tiers: []wire.PricingTier{{}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := (Standard{}).Validate(c.p)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Validate = %v, want an error mentioning %q", err, c.want)
			}
		})
	}
}

func TestValidateAcceptsGrid(t *testing.T) {
	// Two eras times two token bands: four tiers tiling the plane.
	cut := "2025-01-01T00:00:00Z"
	p := wire.Pricing{Tiers: []wire.PricingTier{
		{EffectiveUntil: cut, InputTokensUntil: i64(200_000)},
		{EffectiveUntil: cut, InputTokensFrom: i64(200_000)},
		{EffectiveFrom: cut, InputTokensUntil: i64(200_000)},
		{EffectiveFrom: cut, InputTokensFrom: i64(200_000)},
	}}
	if err := Validate(p); err != nil {
		t.Fatal(err)
	}
}
