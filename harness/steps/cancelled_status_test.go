package steps

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/spec/wire"
)

// TA-18: a session the harness cancelled while its model request hung can
// only end cancelled (PROTOCOL.md §5 item 4). A kernel that took the
// abandoned call for a failure and ended "failed", with a row and result
// that agree, passed before.
func TestCancelledSessionEndsCancelled(t *testing.T) {
	run := func(cancelled bool, status string) error {
		w := fakes.NewWorld()
		row, _ := json.Marshal(wire.SessionMeta{SessionID: "s", Status: status, StartedAt: "2026-12-06T00:00:00Z", EndedAt: "2026-12-06T00:00:01Z"})
		w.Notify(wire.NotifySessionMeta, row)
		s := &Scenario{World: w, SessionID: "s", ran: true, env: &Env{}, cancelOnHang: 2, cancelledWhen: "while its model request 2 hung"}
		s.Result.Status = status
		s.cancelSent.Store(cancelled)
		return s.lastMetaStatus()
	}
	if err := run(true, wire.StatusCancelled); err != nil {
		t.Errorf("cancelled and ended cancelled: %v", err)
	}
	if err := run(true, wire.StatusFailed); err == nil || !strings.Contains(err.Error(), `not "cancelled"`) {
		t.Errorf("cancelled and ended failed: want a failure, got %v", err)
	}
	if err := run(false, wire.StatusFailed); err != nil {
		t.Errorf("never cancelled, ended failed: %v", err)
	}
}
