package hooks

import (
	"context"
	"fmt"

	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/refkernel/trace"
	"github.com/agentconform/conform/spec/wire"
)

// Caller is the part of the Host a dispatcher needs.
type Caller interface {
	Hook(ctx context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error)
	host.Notifier
}

// Env is what a dispatch runs against.
type Env struct {
	Host   Caller
	Tracer trace.Tracer
}

// Request is one dispatch at one point. Hooks holds every declaration of the
// session; the dispatcher picks the subscribers of Point itself, which lets
// a wrapping dispatcher reorder or retime them.
type Request struct {
	Point       string
	Payload     wire.HookPayload
	CallContext wire.CallContext
	Hooks       wire.Hooks
}

// Outcome is the result of a completed chain.
type Outcome struct {
	// Payload is the payload after every transform.
	Payload wire.HookPayload
	// Denied is set when a veto subscriber did not allow; DeniedBy names
	// it and Reason says why.
	Denied   bool
	DeniedBy string
	Reason   string
}

// AbortError is a transform failure: the chain stopped and the caller must
// not go on with the payload it had.
type AbortError struct {
	Point      string
	Subscriber string
	Category   string
	Err        error
}

func (e *AbortError) Error() string {
	return fmt.Sprintf("transform subscriber %q at %s failed (%s): %v", e.Subscriber, e.Point, e.Category, e.Err)
}

func (e *AbortError) Unwrap() error { return e.Err }

// Dispatcher is the swappable hook part.
type Dispatcher interface {
	// Validate checks a session's declarations before it starts.
	Validate(h wire.Hooks) error
	// Dispatch runs the chain of one point. The error is an *AbortError for
	// a failed transform, or the context's error when the session was
	// cancelled meanwhile.
	Dispatch(ctx context.Context, env Env, req Request) (Outcome, error)
}

// ForPoint returns the subscribers of one point in declaration order.
func ForPoint(h wire.Hooks, point string) []wire.Subscriber {
	var out []wire.Subscriber
	for _, s := range h.Subscribers {
		if s.Point == point {
			out = append(out, s)
		}
	}
	return out
}
