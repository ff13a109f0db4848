package loop

import (
	"fmt"
	"testing"

	"github.com/agentconform/conform/refkernel/internal/fakehost"
	"github.com/agentconform/conform/spec/wire"
)

// Denials in a row trip the circuit breaker at step 17 of the turn that
// reached the threshold; the session then takes the limit path.
func TestCircuitBreakerTakesTheLimitPath(t *testing.T) {
	h := &fakehost.Host{
		OnModel: func(n int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) {
			return fakehost.Calls(fakehost.Call(fmt.Sprint("c", n), "write", fmt.Sprintf(`{"path":"%d"}`, n))), nil
		},
	}
	cfg := baseConfig()
	cfg.Bounds.MaxTurns = ip(10)
	cfg.Policy = wire.Policy{
		Rules:          []wire.PolicyRule{{Name: "no", Decision: "deny"}},
		CircuitBreaker: &wire.CircuitBreaker{Consecutive: 2},
	}
	res := run(t, h, cfg, runOpts{})
	if res.Status != wire.StatusErrorMaxTurns || len(h.Requests()) != 3 {
		t.Fatalf("status %q after %d model requests", res.Status, len(h.Requests()))
	}
	if last := h.Requests()[2]; last.Purpose != wire.PurposeFinalAnswer || len(last.Tools) != 0 {
		t.Fatalf("final request %+v", last)
	}
	ev := h.Events(wire.EventLimitReached)
	if len(ev) != 1 || ev[0].Payload["bound"] != "circuit_breaker" || len(h.Events(wire.EventCircuitBreaker)) != 1 {
		t.Fatalf("limit %+v breaker %+v", ev, h.Events(wire.EventCircuitBreaker))
	}
	if count(h.Log(), "invoke write") != 0 {
		t.Fatal("a denied call ran")
	}
}

// Without a circuit_breaker block nothing trips.
func TestNoCircuitBreakerByDefault(t *testing.T) {
	h := &fakehost.Host{
		OnModel: func(n int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) {
			return fakehost.Calls(fakehost.Call(fmt.Sprint("c", n), "write", fmt.Sprintf(`{"path":"%d"}`, n))), nil
		},
	}
	cfg := baseConfig()
	cfg.Bounds.MaxTurns = ip(4)
	cfg.Policy = wire.Policy{Rules: []wire.PolicyRule{{Name: "no", Decision: "deny"}}}
	if res := run(t, h, cfg, runOpts{}); res.Status != wire.StatusErrorMaxTurns || len(h.Requests()) != 5 || len(h.Events(wire.EventCircuitBreaker)) != 0 {
		t.Fatalf("status %q after %d requests", res.Status, len(h.Requests()))
	}
}
