package bounds

import (
	"testing"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

func ip(v int) *int         { return &v }
func fp(v float64) *float64 { return &v }

func TestCheck(t *testing.T) {
	all := wire.Bounds{MaxTurns: ip(3), MaxCostUSD: fp(1), MaxWallClockS: fp(2)}
	cases := []struct {
		name   string
		limits wire.Bounds
		state  State
		want   string // bound, "" for none
	}{
		{"nothing configured", wire.Bounds{}, State{Turns: 1000, CostUSD: 1e9, Elapsed: time.Hour}, ""},
		{"turns below", all, State{Turns: 2}, ""},
		{"turns reached", all, State{Turns: 3}, MaxTurns},
		{"cost below", all, State{Turns: 1, CostUSD: 0.8}, ""},
		{"cost reached exactly", all, State{Turns: 1, CostUSD: 1}, MaxCostUSD},
		{"cost over", all, State{Turns: 1, CostUSD: 1.2}, MaxCostUSD},
		{"clock below", all, State{Turns: 1, Elapsed: 1999 * time.Millisecond}, ""},
		{"clock reached", all, State{Turns: 1, Elapsed: 2 * time.Second}, MaxWallClock},
		{"sub-second clock", wire.Bounds{MaxWallClockS: fp(0.25)}, State{Elapsed: 300 * time.Millisecond}, MaxWallClock},
		{"turns win over cost", all, State{Turns: 3, CostUSD: 5}, MaxTurns},
		{"cost wins over clock", all, State{Turns: 1, CostUSD: 5, Elapsed: time.Hour}, MaxCostUSD},
		{"turns alone", wire.Bounds{MaxTurns: ip(1)}, State{Turns: 1, CostUSD: 1e9}, MaxTurns},
	}
	status := map[string]string{
		MaxTurns: wire.StatusErrorMaxTurns, MaxCostUSD: wire.StatusErrorMaxBudgetUSD, MaxWallClock: wire.StatusErrorMaxWallClock,
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, ok := Standard{}.Check(c.limits, c.state)
			if c.want == "" {
				if ok {
					t.Fatalf("fired %+v", f)
				}
				return
			}
			if !ok || f.Bound != c.want || f.Status != status[c.want] {
				t.Fatalf("got %+v, %v; want %s", f, ok, c.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	bad := []wire.Bounds{
		{MaxTurns: ip(0)},
		{MaxCostUSD: fp(-1)},
		{MaxWallClockS: fp(0)},
		{Weights: &wire.TokenWeights{}},
		{Weights: &wire.TokenWeights{SamplingTokenWeight: -1, MaxWeightedTokens: 10}},
	}
	for _, b := range bad {
		if Validate(b) == nil {
			t.Errorf("accepted %+v", b)
		}
	}
	if err := Validate(wire.Bounds{MaxTurns: ip(1), MaxCostUSD: fp(0), MaxWallClockS: fp(0.1)}); err != nil {
		t.Error(err)
	}
	if err := Validate(wire.Bounds{Soft: true, Weights: &wire.TokenWeights{SamplingTokenWeight: 1, MaxWeightedTokens: 5}}); err != nil {
		t.Error(err)
	}
}

func TestWeightedTokensAreTheCostDimension(t *testing.T) {
	l := wire.Bounds{MaxTurns: ip(10), Weights: &wire.TokenWeights{SamplingTokenWeight: 1, PrefillTokenWeight: 0.5, MaxWeightedTokens: 100}}
	if _, ok := (Standard{}).Check(l, State{Turns: 1, WeightedTokens: 99}); ok {
		t.Fatal("fired below the weighted budget")
	}
	f, ok := Standard{}.Check(l, State{Turns: 1, WeightedTokens: 100})
	if !ok || f.Bound != MaxCostUSD || f.Status != wire.StatusErrorMaxBudgetUSD {
		t.Fatalf("got %+v, %v; want the max_cost_usd bound", f, ok)
	}
}

func TestSoft(t *testing.T) {
	l := wire.Bounds{MaxTurns: ip(2), MaxCostUSD: fp(1), MaxWallClockS: fp(1), Soft: true}
	for _, c := range []struct {
		s    State
		soft bool
	}{
		{State{Turns: 2}, true},
		{State{Turns: 1, CostUSD: 1}, true},
		{State{Turns: 1, Elapsed: time.Second}, false},
	} {
		f, ok := Standard{}.Check(l, c.s)
		if !ok || f.Soft != c.soft {
			t.Errorf("%+v: got %+v, %v; want soft=%v", c.s, f, ok, c.soft)
		}
	}
	if f, _ := (Standard{}).Check(wire.Bounds{MaxTurns: ip(1)}, State{Turns: 1}); f.Soft {
		t.Error("a bound is soft by default")
	}
	a := Allowance{Turns: 2, CostUSD: 1}
	if _, ok := (Standard{}).Check(l, a.Since(State{Turns: 3, CostUSD: 1.5})); ok {
		t.Error("fired inside the fresh allowance")
	}
	if f, ok := (Standard{}).Check(l, a.Since(State{Turns: 4, CostUSD: 1.5})); !ok || f.Bound != MaxTurns {
		t.Errorf("got %+v, %v after the fresh allowance", f, ok)
	}
}
