package server

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/spec/wire"
)

// spawn serves session/spawn, the RunSession callback of a spawn-capable
// tool: the child runs on this connection like any session and the answer
// is its result (SA-04, SA-11).
func (s *server) spawn(ctx context.Context, raw json.RawMessage) (any, error) {
	var p wire.SpawnParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, rpcError(wire.CodeInvalidParams, err.Error())
	}
	res, err := s.k.Spawn(ctx, connHost{s.conn}, p)
	var se *refkernel.SpawnError
	var ce *refkernel.ConfigError
	switch {
	case err == nil:
		return res, nil
	case errors.Is(err, refkernel.ErrUnknownSession):
		return nil, rpcError(wire.CodeUnknownSession, "unknown parent session "+p.ParentSessionID)
	case errors.As(err, &se):
		return nil, rpcError(wire.CodeInvalidParams, se.Error())
	case errors.Is(err, refkernel.ErrSpawnCancelled):
		return nil, rpcError(wire.CodeCancelled, err.Error())
	case errors.As(err, &ce):
		return nil, rpcError(wire.CodeConfigRejected, ce.Error())
	}
	return nil, rpcError(wire.CodeInternal, err.Error())
}
