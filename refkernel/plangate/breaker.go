package plangate

import "github.com/agentconform/conform/spec/wire"

// BreakerStatus is the status a session ends with after the circuit breaker
// tripped (reading circuit_breaker.status, A-06): it takes the limit path
// like max_turns and ends with that bound's status.
const BreakerStatus = wire.StatusErrorMaxTurns

// Trip says why the circuit breaker tripped.
type Trip struct {
	Tier    string // "consecutive" or "window"
	Denials int    // the denials that tripped it
}

// Breaker is the swappable circuit-breaker part (PA-05). It is pure: the
// Gate keeps the session's decision history.
type Breaker interface {
	// Check looks at the session's decisions so far (oldest first, true =
	// denied) under the configured thresholds.
	Check(cfg *wire.CircuitBreaker, history []bool) (Trip, bool)
}

// StandardBreaker trips after cfg.Consecutive denials in a row, or after
// cfg.WindowMax denials among the last cfg.Window decisions. A zero or
// absent threshold switches its tier off, and no circuit_breaker block
// means no breaker (reading circuit_breaker.default: off). Every deny
// decision on a call counts (policy, precheck, a human, a hook veto) and
// every executed call is an allow that ends a run of denials.
type StandardBreaker struct{}

// Check implements Breaker.
func (StandardBreaker) Check(cfg *wire.CircuitBreaker, history []bool) (Trip, bool) {
	if cfg == nil {
		return Trip{}, false
	}
	if cfg.Consecutive > 0 {
		n := 0
		for i := len(history) - 1; i >= 0 && history[i]; i-- {
			n++
		}
		if n >= cfg.Consecutive {
			return Trip{Tier: "consecutive", Denials: n}, true
		}
	}
	if cfg.Window > 0 && cfg.WindowMax > 0 {
		n := 0
		for _, d := range history[max(0, len(history)-cfg.Window):] {
			if d {
				n++
			}
		}
		if n >= cfg.WindowMax {
			return Trip{Tier: "window", Denials: n}, true
		}
	}
	return Trip{}, false
}

// historyLimit is how many decisions the Gate keeps: enough for either tier.
func historyLimit(cfg *wire.CircuitBreaker) int {
	if cfg == nil {
		return 0
	}
	return max(cfg.Consecutive, cfg.Window)
}
