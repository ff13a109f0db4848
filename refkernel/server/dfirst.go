package server

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/spec/wire"
)

// The deterministic-first profile's methods (PROTOCOL.md §17).

// memoryWrite serves memory/write: a running tool's write to session
// memory, applied before the answer (§17.5).
func (s *server) memoryWrite(raw json.RawMessage) (any, error) {
	var p wire.MemoryWriteParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, rpcError(wire.CodeInvalidParams, err.Error())
	}
	switch err := s.k.WriteMemory(p); {
	case errors.Is(err, refkernel.ErrUnknownSession):
		return nil, rpcError(wire.CodeUnknownSession, "unknown session "+p.SessionID)
	case err != nil:
		return nil, rpcError(wire.CodeInvalidParams, err.Error())
	}
	return wire.Empty{}, nil
}

// Confirm asks the user to confirm a call (frontend/confirm, §17.6); it
// makes connHost a dfirst.Confirmer.
func (h connHost) Confirm(ctx context.Context, p wire.ConfirmParams) (wire.ConfirmResult, error) {
	return call[wire.ConfirmParams, wire.ConfirmResult](ctx, h.conn, wire.MethodFrontendConfirm, p)
}
