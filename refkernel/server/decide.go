package server

import (
	"encoding/json"
	"errors"

	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/spec/wire"
)

// decide serves frontend/decide: another frontend connection's decisions
// for pending plan items (PA-16, PROTOCOL.md §6.7).
func (s *server) decide(raw json.RawMessage) (any, error) {
	var p wire.FrontendDecideParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, rpcError(wire.CodeInvalidParams, err.Error())
	}
	res, err := s.k.Decide(p)
	if errors.Is(err, refkernel.ErrUnknownSession) {
		return nil, rpcError(wire.CodeUnknownSession, "no running session "+p.SessionID)
	}
	if err != nil {
		return nil, rpcError(wire.CodeInternal, err.Error())
	}
	return res, nil
}
