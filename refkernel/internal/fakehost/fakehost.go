package fakehost

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/agentconform/conform/spec/wire"
)

// Host answers every kernel request from its On* functions; unset ones give
// a harmless default. The log entries are "assemble", "hook <point>
// <subscriber>", "model <purpose>", "invoke <tool>" and "invoke-end <tool>",
// "interactive <tool>" and "interactive-end <tool>", "permission <tool>",
// "preview <tool>".
type Host struct {
	// OnModel answers the n-th model request (from 1). Default: text "done".
	OnModel       func(n int, p wire.ModelStreamParams) (wire.ModelStreamResult, error)
	OnInvoke      func(ctx context.Context, p wire.ToolInvokeParams) (wire.ToolInvokeResult, error)
	OnHook        func(ctx context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error)
	OnPermission  func(p wire.PermissionParams) (wire.PermissionResult, error)
	OnInteractive func(ctx context.Context, p wire.InteractiveParams) (wire.InteractiveResult, error)
	OnPreview     func(ctx context.Context, p wire.ToolPreviewParams) (wire.ToolPreviewResult, error)
	Contributions []wire.Contribution
	// Quiet turns recording off, for benchmarks.
	Quiet bool

	mu       sync.Mutex
	models   int
	log      []string
	requests []wire.ModelStreamParams
	notes    []Note
}

// Note is one notification.
type Note struct {
	Method string
	Params any
}

func (h *Host) record(entry string) {
	if h.Quiet {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.log = append(h.log, entry)
}

// Assemble implements Host.
func (h *Host) Assemble(context.Context, wire.ContextAssembleParams) (wire.ContextAssembleResult, error) {
	h.record("assemble")
	return wire.ContextAssembleResult{Contributions: h.Contributions}, nil
}

// Hook implements Host.
func (h *Host) Hook(ctx context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
	h.record("hook " + p.Point + " " + p.Subscriber)
	if h.OnHook != nil {
		return h.OnHook(ctx, p)
	}
	return Agree(p), nil
}

// Agree is the answer of a subscriber that has no objection: ack, the
// payload unchanged, or ALLOW.
func Agree(p wire.HookDispatchParams) wire.HookDispatchResult {
	switch p.Mode {
	case wire.ModeTransform:
		payload := p.Payload
		return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &payload}
	case wire.ModeVeto:
		return wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionAllow}
	}
	return wire.HookDispatchResult{Outcome: wire.OutcomeAck}
}

// Stream implements Host.
func (h *Host) Stream(_ context.Context, p wire.ModelStreamParams) (wire.ModelStreamResult, error) {
	h.mu.Lock()
	h.models++
	n := h.models
	if !h.Quiet {
		h.log = append(h.log, "model "+p.Purpose)
		h.requests = append(h.requests, p)
	}
	h.mu.Unlock()
	if h.OnModel != nil {
		return h.OnModel(n, p)
	}
	return Text("done"), nil
}

// Invoke implements Host.
func (h *Host) Invoke(ctx context.Context, p wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
	h.record("invoke " + p.Tool)
	defer h.record("invoke-end " + p.Tool)
	if h.OnInvoke != nil {
		return h.OnInvoke(ctx, p)
	}
	return wire.ToolInvokeResult{Output: json.RawMessage(`"ok"`)}, nil
}

// Preview implements Host.
func (h *Host) Preview(ctx context.Context, p wire.ToolPreviewParams) (wire.ToolPreviewResult, error) {
	h.record("preview " + p.Tool)
	if h.OnPreview != nil {
		return h.OnPreview(ctx, p)
	}
	return wire.ToolPreviewResult{Preview: "preview of " + p.Tool}, nil
}

// Permission implements Host. Default: allow every item once.
func (h *Host) Permission(_ context.Context, p wire.PermissionParams) (wire.PermissionResult, error) {
	for _, it := range p.Items {
		h.record("permission " + it.Tool)
	}
	if h.OnPermission != nil {
		return h.OnPermission(p)
	}
	var res wire.PermissionResult
	for _, it := range p.Items {
		res.Decisions = append(res.Decisions, wire.PlanDecision{PlanItemID: it.ID, Decision: wire.DecisionAllow, Scope: wire.ScopeOnce})
	}
	return res, nil
}

// Interactive implements Host. Default answer: "yes".
func (h *Host) Interactive(ctx context.Context, p wire.InteractiveParams) (wire.InteractiveResult, error) {
	h.record("interactive " + p.ToolName)
	defer h.record("interactive-end " + p.ToolName)
	if h.OnInteractive != nil {
		return h.OnInteractive(ctx, p)
	}
	return wire.InteractiveResult{Response: "yes"}, nil
}

// Notify implements Host.
func (h *Host) Notify(method string, params any) {
	if h.Quiet {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.notes = append(h.notes, Note{method, params})
}

// Log is the request log so far.
func (h *Host) Log() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.log)
}

// Requests are the model requests so far.
func (h *Host) Requests() []wire.ModelStreamParams {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.requests)
}

// Notes are the notifications of one method, in order.
func (h *Host) Notes(method string) []any {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []any
	for _, n := range h.notes {
		if n.Method == method {
			out = append(out, n.Params)
		}
	}
	return out
}

// Events are the event notifications of one kind ("" for all).
func (h *Host) Events(kind string) []wire.Event {
	var out []wire.Event
	for _, n := range h.Notes(wire.NotifyEvent) {
		if e := n.(wire.Event); kind == "" || e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// Spans are the trace/span notifications.
func (h *Host) Spans() []wire.Span {
	var out []wire.Span
	for _, n := range h.Notes(wire.NotifyTraceSpan) {
		out = append(out, n.(wire.Span))
	}
	return out
}

// Text is a model reply with only text.
func Text(s string) wire.ModelStreamResult {
	return wire.ModelStreamResult{Events: []wire.StreamEvent{
		{Type: wire.EventTextDelta, Text: s},
		{Type: wire.EventStop, StopReason: "end_turn"},
	}}
}

// Calls is a model reply with tool calls.
func Calls(calls ...wire.StreamEvent) wire.ModelStreamResult {
	return wire.ModelStreamResult{Events: append(calls, wire.StreamEvent{Type: wire.EventStop, StopReason: "tool_use"})}
}

// Call is one tool_call stream event.
func Call(id, name, input string) wire.StreamEvent {
	return wire.StreamEvent{Type: wire.EventToolCall, ID: id, Name: name, Input: json.RawMessage(input)}
}

// Usage is a usage stream event.
func Usage(in, out int64) wire.StreamEvent {
	return wire.StreamEvent{Type: wire.EventUsage, Usage: &wire.Usage{InputTokens: in, OutputTokens: out}}
}

// With appends events to a reply before its stop event.
func With(r wire.ModelStreamResult, events ...wire.StreamEvent) wire.ModelStreamResult {
	n := len(r.Events) - 1
	r.Events = append(append(slices.Clone(r.Events[:n]), events...), r.Events[n])
	return r
}
