package refkernel

import (
	"context"
	"errors"

	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/subagent"
	"github.com/agentconform/conform/spec/wire"
)

// Errors of Spawn besides ErrUnknownSession and *ConfigError.
var (
	// ErrSpawnCancelled is a queued spawn whose parent or caller went away
	// before the child started; no child session exists.
	ErrSpawnCancelled = subagent.ErrCancelled
)

// SpawnError is a spawn the kernel refuses: the call is not an in-flight
// spawn-capable tool call of the named parent, the profile is
// unknown, or no depth budget is left.
type SpawnError = subagent.SpawnError

// Spawn serves the RunSession callback (session/spawn): it runs a child of
// p.ParentSessionID from the named profile and returns the child's result
// once the child has ended (SA-04, SA-11). The kernel computes the child's
// depth and cost budgets itself; the caller's values can only lower them
// (SA-10). The child runs inside its parent's context, so cancelling any
// ancestor cancels it (SA-08); giving up on the call (ctx) cancels it too.
func (k *Kernel) Spawn(ctx context.Context, h Host, p wire.SpawnParams) (wire.RunSessionResult, error) {
	child, err := k.tree.Spawn(ctx, p)
	if errors.Is(err, subagent.ErrUnknownSession) {
		return wire.RunSessionResult{}, ErrUnknownSession
	}
	if err != nil {
		return wire.RunSessionResult{}, err
	}
	s, err := loop.NewSession(loop.Setup{
		Parts:          k.parts,
		Host:           h,
		Clock:          k.clock,
		IDs:            k.ids,
		PreviewTimeout: k.previewTimeout,
		Store:          k.store,
		Params:         wire.RunParams{SessionID: child.ID, Prompt: p.Prompt, Config: child.Config},
		Node:           child,
	})
	if err != nil {
		child.End(nil)
		return wire.RunSessionResult{}, err
	}
	run := func() wire.RunSessionResult { return s.Run(child.Context()) }
	if !k.parts.Subagents.Join() {
		go run()
		return wire.RunSessionResult{SessionID: child.ID, Status: wire.StatusCompleted}, nil
	}
	stop := context.AfterFunc(ctx, child.Cancel)
	defer stop()
	return run(), nil
}

// Live is the number of sessions, roots and children, running now.
func (k *Kernel) Live() int { return k.tree.Live() }
