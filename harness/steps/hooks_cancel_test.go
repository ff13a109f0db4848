package steps

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/spec/wire"
)

// HD-14's other side: a call the kernel abandoned on the harness's cancel
// is no failure, and the check is not reached when the call never came.
func TestAbandonedHookCallIsNoFailure(t *testing.T) {
	run := func(dispatched bool, events ...wire.Event) error {
		w := fakes.NewWorld()
		for _, ev := range events {
			b, _ := json.Marshal(ev)
			w.Notify(wire.NotifyEvent, b)
		}
		s := &Scenario{World: w, SessionID: "s", ran: true, env: &Env{}, hookCancelFor: "T1"}
		s.cancelSent.Store(dispatched)
		return s.noHookErrorFor("T1", "O0")
	}
	hookErr := func(session, sub string) wire.Event {
		return wire.Event{SessionID: session, Kind: wire.EventHookError, Producer: sub,
			Payload: map[string]any{"subscriber": sub, "point": "pre-model-call", "mode": "transform", "category": "TRANSFORM_FAILED"}}
	}
	var nr *notReachedError
	witness := hookErr("s", "O0")
	if err := run(false, witness); !errors.As(err, &nr) {
		t.Errorf("never dispatched: want not reached, got %v", err)
	}
	if err := run(true); !errors.As(err, &nr) {
		t.Errorf("no failure recorded at all, the witness's neither: want not reached, got %v", err)
	}
	if err := run(true, witness); err != nil {
		t.Errorf("abandoned, no hook_error: %v", err)
	}
	if err := run(true, witness, hookErr("s", "T1")); err == nil || !strings.Contains(err.Error(), "did not fail") {
		t.Errorf("abandoned and reported as failed: want a failure, got %v", err)
	}
	if err := run(true, witness, hookErr("other", "T1"), hookErr("s", "T2")); err != nil {
		t.Errorf("hook_errors of another session or subscriber: %v", err)
	}
}
