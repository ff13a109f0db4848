package kernelkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

// Outcome is what a point's chain of subscribers made of its payload.
type Outcome struct {
	// Payload is the payload after the transforms (the one sent when
	// there were none).
	Payload wire.HookPayload
	// Denied is set when a veto subscriber denied, or failed and so
	// counts as a deny (fail closed); By names it and Reason says why.
	Denied     bool
	By, Reason string
}

// HookAbort is a transform subscriber's failure, which aborts its chain
// (PROTOCOL.md §7.2). Dispatch has already reported it with a hook_error
// event; what the session does next is the kernel's reading
// hooks.transform_abort_status.
type HookAbort struct {
	Point, Subscriber, Category string
	Err                         error
}

func (e *HookAbort) Error() string {
	return fmt.Sprintf("transform subscriber %s at %s failed (%s): %v", e.Subscriber, e.Point, e.Category, e.Err)
}

func (e *HookAbort) Unwrap() error { return e.Err }

// Dispatch runs every subscriber the config declares at payload.Variant,
// in declaration order and one at a time, with the rules of PROTOCOL.md
// §7.2: each call carries the subscriber's mode and effective timeout, and
// is cancelled ($/cancelRequest) when that timeout expires (a timeout of 0
// sets no deadline); an observer's answer is ignored; a transform's payload
// goes on to the next subscriber, and may differ from what it received
// only in the messages of pre-model-call; a veto ALLOW goes on, anything
// else denies and ends the chain. A failure (an error answer, a crash, a
// timeout, an answer that does not fit the mode or the schema) is reported
// as a hook_error event naming the subscriber, and then ignored (observe),
// aborts the chain with a *HookAbort (transform), or denies (veto).
//
// It implements a hook system; an adapter whose framework has one of its
// own calls Host.Hook from the framework's hooks instead.
func (s *Session) Dispatch(ctx context.Context, turnID string, payload wire.HookPayload) (Outcome, error) {
	out := Outcome{Payload: payload}
	for _, sub := range s.Config.Hooks.Subscribers {
		if sub.Point != payload.Variant {
			continue
		}
		res, category, err := s.callHook(ctx, turnID, sub, out.Payload)
		if err != nil {
			return out, err // the session's own ctx, or the connection
		}
		if category != "" {
			s.hookError(turnID, sub, category, res.Reason)
		}
		switch sub.Mode {
		case wire.ModeTransform:
			if category != "" {
				return out, &HookAbort{Point: sub.Point, Subscriber: sub.ID, Category: category, Err: errors.New(res.Reason)}
			}
			out.Payload = *res.Payload
		case wire.ModeVeto:
			if category != "" || res.Decision != wire.DecisionAllow {
				reason := res.Reason
				if reason == "" {
					reason = "denied by " + sub.ID
				}
				out.Denied, out.By, out.Reason = true, sub.ID, reason
				return out, nil
			}
		}
	}
	return out, nil
}

// callHook makes one subscriber's call. category is "" for an answer that
// fits the mode, else the hook_error category, with res.Reason saying why.
func (s *Session) callHook(ctx context.Context, turnID string, sub wire.Subscriber, payload wire.HookPayload) (wire.HookDispatchResult, string, error) {
	timeout := s.Config.Hooks.DefaultTimeoutMS
	if sub.TimeoutMS > 0 {
		timeout = sub.TimeoutMS
	}
	cctx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		cctx, cancel = context.WithTimeout(ctx, time.Duration(timeout)*time.Millisecond)
	}
	defer cancel()
	res, err := s.Host.Hook(cctx, wire.HookDispatchParams{
		CallContext: s.CallContext(turnID), Point: sub.Point, Subscriber: sub.ID, Mode: sub.Mode, TimeoutMS: timeout, Payload: payload,
	})
	var bad *ProtocolViolation
	switch {
	case err == nil:
	case ctx.Err() != nil || errors.Is(err, ErrClosed):
		return res, "", err
	case errors.Is(err, context.DeadlineExceeded):
		return wire.HookDispatchResult{Reason: fmt.Sprintf("no answer within %d ms", timeout)}, wire.HookErrTimeout, nil
	case errors.As(err, &bad):
		return wire.HookDispatchResult{Reason: bad.What}, wire.HookErrInvalidResponse, nil
	default:
		category := wire.HookErrUnknown
		if c, _ := Code(err); c == wire.CodeProcessCrashed {
			category = wire.HookErrProcessCrashed
		} else if sub.Mode == wire.ModeTransform {
			category = wire.HookErrTransformFailed
		} else if sub.Mode == wire.ModeVeto {
			category = wire.HookErrVetoFailed
		}
		return wire.HookDispatchResult{Reason: err.Error()}, category, nil
	}
	if why := misfit(sub.Mode, payload, res); why != "" {
		return wire.HookDispatchResult{Reason: why}, wire.HookErrInvalidResponse, nil
	}
	return res, "", nil
}

// misfit says why an answer does not fit the subscriber's mode ("" when it
// does).
func misfit(mode string, sent wire.HookPayload, res wire.HookDispatchResult) string {
	switch {
	case mode == wire.ModeObserve && res.Outcome != wire.OutcomeAck:
		return "an observer answered " + res.Outcome
	case mode == wire.ModeVeto && (res.Outcome != wire.OutcomeVeto || res.Decision == wire.DecisionUnspecified || res.Decision == ""):
		return fmt.Sprintf("a veto subscriber answered %s %s", res.Outcome, res.Decision)
	case mode != wire.ModeTransform:
		return ""
	case res.Outcome != wire.OutcomeTransform || res.Payload == nil:
		return "a transform subscriber answered " + res.Outcome + " without a payload"
	case res.Payload.Variant != sent.Variant:
		return fmt.Sprintf("the payload's variant changed from %s to %s", sent.Variant, res.Payload.Variant)
	}
	// Only pre-model-call's messages may change (HD-09).
	before, after := sent, *res.Payload
	if sent.Variant == wire.PointPreModelCall {
		before.Messages, after.Messages = nil, nil
	}
	b, _ := json.Marshal(before)
	a, _ := json.Marshal(after)
	if !bytes.Equal(a, b) {
		return "the transform changed a field it may not change"
	}
	return ""
}

func (s *Session) hookError(turnID string, sub wire.Subscriber, category, message string) {
	s.Host.Event(wire.Event{SessionID: s.ID, TurnID: turnID, Kind: wire.EventHookError, Producer: sub.ID, Payload: map[string]any{
		"subscriber": sub.ID, "point": sub.Point, "mode": sub.Mode, "category": category, "message": message,
	}})
}
