package driver

import (
	"context"

	"github.com/agentconform/conform/spec/wire"
)

// Continue sends session/continue: the user's message resumes a session that
// a soft limit paused (TA-09).
func (k *Kernel) Continue(ctx context.Context, session, message string) error {
	return k.rpc.Call(ctx, wire.MethodSessionContinue, wire.ContinueParams{SessionID: session, Message: message}, nil)
}
