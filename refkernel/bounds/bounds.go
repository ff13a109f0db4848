package bounds

import (
	"errors"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

// Bound names, as reported in the limit_reached event.
const (
	MaxTurns     = "max_turns"
	MaxCostUSD   = "max_cost_usd"
	MaxWallClock = "max_wall_clock_s"
	// DoomLoop and CircuitBreaker are not bounds of this package but take
	// the same limit-reached path, so they share the Fired shape.
	DoomLoop       = "doom_loop"
	CircuitBreaker = "circuit_breaker"
)

// State is what the session has used so far. With soft limits the loop
// passes what was used since the last continuation (see Allowance).
type State struct {
	Turns   int           // ordinary turns run, the current one included
	CostUSD float64       // running sum of every usage event's cost
	Elapsed time.Duration // since session start, on the injected clock
	// WeightedTokens is the running sum of the weighted-token refinement
	// (TA-05); it is only compared when bounds.weights is configured.
	WeightedTokens float64
}

// Fired names the bound that tripped and the status the session ends with.
type Fired struct {
	Bound  string
	Status string
	// Soft: the bound pauses the session for a user continuation instead
	// of ending it (TA-09). Only max_turns and max_cost_usd can be soft.
	Soft bool
}

// Checker is the swappable bounds part.
type Checker interface {
	// Check reports the first bound that has fired, in the order turns,
	// cost, wall clock.
	Check(limits wire.Bounds, s State) (Fired, bool)
}

// Standard is the reference checker. Each dimension is compared on its own
// (TA-19); the weighted-token budget is part of the cost dimension, so it
// fires as max_cost_usd with the same status, never as a fourth bound
// (TA-05).
type Standard struct{}

// Check implements Checker.
func (Standard) Check(l wire.Bounds, s State) (Fired, bool) {
	switch {
	case l.MaxTurns != nil && s.Turns >= *l.MaxTurns:
		return Fired{MaxTurns, wire.StatusErrorMaxTurns, l.Soft}, true
	case CostSpent(l, s):
		return Fired{MaxCostUSD, wire.StatusErrorMaxBudgetUSD, l.Soft}, true
	case l.MaxWallClockS != nil && s.Elapsed.Seconds() >= *l.MaxWallClockS:
		// The wall clock is never soft: TA-09 names only turns and cost.
		return Fired{MaxWallClock, wire.StatusErrorMaxWallClock, false}, true
	}
	return Fired{}, false
}

// CostSpent reports whether the cost dimension is used up: the dollars
// reached max_cost_usd (the remaining budget is <= 0), or the weighted
// tokens reached their budget.
func CostSpent(l wire.Bounds, s State) bool {
	if l.MaxCostUSD != nil && s.CostUSD >= *l.MaxCostUSD {
		return true
	}
	return l.Weights != nil && s.WeightedTokens >= l.Weights.MaxWeightedTokens
}

// Allowance is where a soft-limited session restarts its count after the
// user continued: the usage at that moment. Zero for a session that never
// paused.
type Allowance struct {
	Turns          int
	CostUSD        float64
	WeightedTokens float64
}

// Since is the state counted from the allowance on. The wall clock is not
// reset: it is not a soft bound.
func (a Allowance) Since(s State) State {
	return State{
		Turns: s.Turns - a.Turns, CostUSD: s.CostUSD - a.CostUSD,
		WeightedTokens: s.WeightedTokens - a.WeightedTokens, Elapsed: s.Elapsed,
	}
}

// Validate refuses bounds the kernel cannot honour.
func Validate(l wire.Bounds) error {
	switch {
	case l.MaxTurns != nil && *l.MaxTurns < 1:
		return errors.New("bounds.max_turns must be at least 1")
	case l.MaxCostUSD != nil && *l.MaxCostUSD < 0:
		return errors.New("bounds.max_cost_usd must not be negative")
	case l.MaxWallClockS != nil && *l.MaxWallClockS <= 0:
		return errors.New("bounds.max_wall_clock_s must be positive")
	case l.Weights != nil && (l.Weights.SamplingTokenWeight < 0 || l.Weights.PrefillTokenWeight < 0):
		return errors.New("bounds.weights: token weights must not be negative")
	case l.Weights != nil && l.Weights.MaxWeightedTokens <= 0:
		return errors.New("bounds.weights.max_weighted_tokens must be positive")
	}
	return nil
}
