package server

import (
	"testing"

	"github.com/agentconform/conform/refkernel/internal/fakehost"
	"github.com/agentconform/conform/spec/wire"
)

// frontend/decide needs initialize, names a running session, and a params
// object that passes its schema.
func TestDecideErrors(t *testing.T) {
	h := start(t, &fakehost.Host{})
	p := wire.FrontendDecideParams{SessionID: "nobody", Connection: "second",
		Decisions: []wire.PlanDecision{{PlanItemID: "p1", Decision: wire.DecisionDeny}}}
	if err := h.call(t, wire.MethodFrontendDecide, p, nil); code(err) != wire.CodeInvalidRequest {
		t.Errorf("before initialize: %v, want %d", err, wire.CodeInvalidRequest)
	}
	h.init(t)
	if err := h.call(t, wire.MethodFrontendDecide, p, nil); code(err) != wire.CodeUnknownSession {
		t.Errorf("unknown session: %v, want %d", err, wire.CodeUnknownSession)
	}
	p.Connection = wire.ConnectionPrimary
	if err := h.call(t, wire.MethodFrontendDecide, p, nil); code(err) != wire.CodeInvalidParams {
		t.Errorf("as the primary connection: %v, want %d", err, wire.CodeInvalidParams)
	}
}
