package fakes

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

// HookAction is what a fake subscriber does when dispatched.
type HookAction int

const (
	// HookDefault: observe acks, transform echoes the payload, veto allows.
	HookDefault HookAction = iota
	// HookAppend: a transform appends a user message with Text to messages.
	HookAppend
	HookAllow
	HookDeny
	HookUnspecified
	HookError
	HookCrash
	HookHang
	// HookWrongOutcome answers with an outcome that does not fit the mode.
	HookWrongOutcome
	// HookChangeModel: a transform changes the immutable model field.
	HookChangeModel
)

// HookBehavior scripts one subscriber.
type HookBehavior struct {
	Action HookAction
	Text   string
	Gate   *Gate
}

// Hooks are the fake hook subscribers, by subscriber id.
type Hooks struct {
	mu sync.Mutex
	by map[string]HookBehavior
}

func newHooks() *Hooks { return &Hooks{by: map[string]HookBehavior{}} }

// Set scripts a subscriber.
func (h *Hooks) Set(id string, b HookBehavior) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.by[id] = b
}

func crashError(msg string) error {
	return &jsonrpc.Error{Code: wire.CodeProcessCrashed, Message: msg}
}

func (h *Hooks) dispatch(ctx context.Context, done <-chan struct{}, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
	h.mu.Lock()
	b := h.by[p.Subscriber]
	h.mu.Unlock()
	if b.Gate != nil {
		if err := b.Gate.Wait(ctx, done); err != nil {
			return wire.HookDispatchResult{}, err
		}
	}
	switch b.Action {
	case HookHang:
		select {
		case <-ctx.Done():
			return wire.HookDispatchResult{}, ctx.Err()
		case <-done:
			return wire.HookDispatchResult{}, errHeld
		}
	case HookError:
		return wire.HookDispatchResult{}, &jsonrpc.Error{Code: wire.CodeHookFailed, Message: "subscriber " + p.Subscriber + " failed (scripted)"}
	case HookCrash:
		return wire.HookDispatchResult{}, crashError("subscriber " + p.Subscriber + " exited (scripted)")
	case HookAllow:
		return wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionAllow}, nil
	case HookDeny:
		return wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionDeny, Reason: "denied by " + p.Subscriber}, nil
	case HookUnspecified:
		return wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionUnspecified}, nil
	case HookWrongOutcome:
		if p.Mode == wire.ModeObserve {
			return wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionAllow}, nil
		}
		return wire.HookDispatchResult{Outcome: wire.OutcomeAck}, nil
	case HookAppend:
		pl := clonePayload(p.Payload)
		pl.Messages = append(pl.Messages, wire.Message{Role: "user", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: b.Text}}})
		return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &pl}, nil
	case HookChangeModel:
		pl := clonePayload(p.Payload)
		pl.Model = pl.Model + "-other"
		return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &pl}, nil
	}
	switch p.Mode {
	case wire.ModeTransform:
		pl := clonePayload(p.Payload)
		return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &pl}, nil
	case wire.ModeVeto:
		return wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionAllow}, nil
	}
	return wire.HookDispatchResult{Outcome: wire.OutcomeAck}, nil
}

func clonePayload(p wire.HookPayload) wire.HookPayload {
	b, _ := json.Marshal(p)
	var out wire.HookPayload
	_ = json.Unmarshal(b, &out)
	return out
}
