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

// State is what the session has used so far.
type State struct {
	Turns   int           // ordinary turns run, the current one included
	CostUSD float64       // running sum of every usage event's cost
	Elapsed time.Duration // since session start, on the injected clock
}

// Fired names the bound that tripped and the status the session ends with.
type Fired struct {
	Bound  string
	Status string
}

// Checker is the swappable bounds part.
type Checker interface {
	// Check reports the first bound that has fired, in the order turns,
	// cost, wall clock.
	Check(limits wire.Bounds, s State) (Fired, bool)
}

// Standard is the reference checker.
type Standard struct{}

// Check implements Checker.
func (Standard) Check(l wire.Bounds, s State) (Fired, bool) {
	switch {
	case l.MaxTurns != nil && s.Turns >= *l.MaxTurns:
		return Fired{MaxTurns, wire.StatusErrorMaxTurns}, true
	case l.MaxCostUSD != nil && s.CostUSD >= *l.MaxCostUSD:
		return Fired{MaxCostUSD, wire.StatusErrorMaxBudgetUSD}, true
	case l.MaxWallClockS != nil && s.Elapsed.Seconds() >= *l.MaxWallClockS:
		return Fired{MaxWallClock, wire.StatusErrorMaxWallClock}, true
	}
	return Fired{}, false
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
	case l.Soft:
		return errors.New("bounds.soft: soft limits are not supported by this kernel")
	case l.Weights != nil:
		return errors.New("bounds.weights: weighted-token budgets are not supported by this kernel")
	}
	return nil
}
