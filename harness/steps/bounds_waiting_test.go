package steps

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/spec/wire"
)

// TA-22: a session the harness's time limit cut before the kernel reached
// its bound was still working, not waiting for input: not reached, not a
// failure (a slow Cline made no request within a 30 s limit and was failed
// for "waiting, with nobody to answer"). One that reached its bound (a
// limit_reached event) and was still running when the limit passed fails.
func TestEndedOnItsOwnNeedsTheBoundReached(t *testing.T) {
	cut := func(reached bool) *Scenario {
		w := fakes.NewWorld()
		if reached {
			ev, _ := json.Marshal(wire.Event{SessionID: "s", TurnID: "t2", Kind: wire.EventLimitReached, Producer: "kernel", Payload: map[string]any{"bound": "max_turns"}})
			w.Notify(wire.NotifyEvent, ev)
		}
		two := 2
		s := &Scenario{World: w, SessionID: "s", ran: true, env: &Env{}}
		s.Cfg.Bounds.MaxTurns = &two
		s.Result.Status = wire.StatusCancelled
		s.limits.limited, s.limits.watchdogFired = true, true
		return s
	}
	var nr *notReachedError
	if err := cut(false).endedOnItsOwn(); !errors.As(err, &nr) || !strings.Contains(err.Error(), "before the kernel reached its bound of 2 turns") {
		t.Errorf("cut before its bound: want not reached, got %v", err)
	}
	if err := cut(true).endedOnItsOwn(); err == nil || errors.As(err, &nr) || !strings.Contains(err.Error(), "nobody to answer") {
		t.Errorf("cut while waiting at its bound: want a failure, got %v", err)
	}
}
