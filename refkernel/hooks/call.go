package hooks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/refkernel/internal/await"
	"github.com/agentconform/conform/spec/wire"
)

// Timeout is a subscriber's effective deadline; zero means none.
func Timeout(sub wire.Subscriber, defaultMS int) time.Duration {
	ms := sub.TimeoutMS
	if ms == 0 {
		ms = defaultMS
	}
	return time.Duration(ms) * time.Millisecond
}

// Invoke dispatches to one subscriber under its deadline, inside its
// hook_subscriber span. It returns the answer, or the failure category when
// the subscriber failed, or an error when the session itself was cancelled
// (which is nobody's failure). Wrapping dispatchers reuse it.
func Invoke(ctx context.Context, env Env, req Request, sub wire.Subscriber, p wire.HookPayload) (wire.HookDispatchResult, string, error) {
	ctx, span := env.Tracer.Start(ctx, wire.RoleHookSubscribe, "hook_subscriber "+sub.ID, spanAttrs(req.CallContext,
		attribute.String(AttrPoint, req.Point),
		attribute.String(AttrSubscriber, sub.ID),
		attribute.String(AttrMode, sub.Mode))...)
	defer span.End()

	timeout := Timeout(sub, req.Hooks.DefaultTimeoutMS)
	params := wire.HookDispatchParams{
		CallContext: req.CallContext,
		Point:       req.Point,
		Subscriber:  sub.ID,
		Mode:        sub.Mode,
		TimeoutMS:   int(timeout / time.Millisecond),
		Payload:     p,
	}
	res, err := await.Call(ctx, timeout, func(ctx context.Context) (wire.HookDispatchResult, error) {
		return env.Host.Hook(ctx, params)
	})
	if err == nil {
		return res, "", nil
	}
	if ctx.Err() != nil {
		return res, "", ctx.Err()
	}
	return res, category(sub.Mode, err), nil
}

// category classifies a failed call by what went wrong and the mode. An
// answer that breaks the result schema is the subscriber's invalid
// response, not a transport failure (PROTOCOL.md §7.2).
func category(mode string, err error) string {
	var bad *jsonrpc.Violation
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return wire.HookErrTimeout
	case errors.As(err, &bad):
		return wire.HookErrInvalidResponse
	case host.HasCode(err, wire.CodeProcessCrashed):
		return wire.HookErrProcessCrashed
	case mode == wire.ModeTransform:
		return wire.HookErrTransformFailed
	case mode == wire.ModeVeto:
		return wire.HookErrVetoFailed
	default:
		return wire.HookErrUnknown
	}
}

// ReportFailure sends the hook_error event of a failed subscriber, with the
// subscriber as its producer (HD-14).
func ReportFailure(env Env, req Request, sub wire.Subscriber, cat, msg string) {
	host.Emit(env.Host, req.CallContext.SessionID, req.CallContext.TurnID, wire.EventHookError, sub.ID, map[string]any{
		"point":      req.Point,
		"subscriber": sub.ID,
		"mode":       sub.Mode,
		"category":   cat,
		"message":    msg,
	})
}

func failure(cat, msg string) error { return fmt.Errorf("%s: %s", cat, msg) }

func describe(res wire.HookDispatchResult) string {
	s := fmt.Sprintf("outcome %q", res.Outcome)
	if res.Decision != "" {
		s += fmt.Sprintf(" with decision %q", res.Decision)
	}
	return s
}
