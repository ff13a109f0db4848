package fakes

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

// World is one scenario's fakes and recordings.
type World struct {
	Log      *calllog.Log
	Model    *Model
	Tools    *Tools
	Hooks    *Hooks
	Frontend *Frontend
	// Agents are the sub-agent fakes: spawn-capable tools and the scripts
	// of child sessions (spawn.go).
	Agents *Agents
	// DF is the deterministic-first side: confirmations, and tools that
	// write memory as they run (dfirst.go).
	DF *DF
	// ContextText, when set, builds the context contribution of turn n.
	ContextText func(turn int) string
	// OnEvent, when set, sees every event notification as it arrives (in
	// the connection's read loop: it must not block).
	OnEvent func(wire.Event)
	// ReducedText, when set, builds the contribution of a pass that asks
	// the provider to reduce (after context_length_exceeded, ER-06); unset,
	// the provider cannot shrink and answers as usual.
	ReducedText func(turn int) string

	done     chan struct{}
	doneOnce sync.Once

	mu     sync.Mutex
	spans  []wire.Span
	costs  []wire.CostUsage
	metas  []wire.SessionMeta
	events []wire.Event
	bad    []string
}

// NewWorld makes an empty world with default behaviours.
func NewWorld() *World {
	w := &World{
		Log: calllog.New(nil), Model: newModel(), Tools: newTools(), Hooks: newHooks(),
		Frontend: newFrontend(), done: make(chan struct{}),
		ContextText: func(turn int) string { return fmt.Sprintf("context for turn %d", turn) },
	}
	w.Agents = newAgents(w)
	w.DF = newDF(w)
	return w
}

// Close releases every call still held by a fake; it ends the scenario.
func (w *World) Close() { w.doneOnce.Do(func() { close(w.done) }) }

// Problems lists requests the fakes could not make sense of (e.g. a tool
// the scenario never declared); checks report them.
func (w *World) Problems() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.bad...)
}

func (w *World) problem(format string, a ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.bad = append(w.bad, fmt.Sprintf(format, a...))
}

// SessionOf extracts the call_context.session_id of a request, or the
// session_id of a notification, for routing.
func SessionOf(raw json.RawMessage) string {
	var p struct {
		CallContext struct {
			SessionID string `json:"session_id"`
		} `json:"call_context"`
		SessionID string `json:"session_id"`
	}
	_ = json.Unmarshal(raw, &p)
	if p.CallContext.SessionID != "" {
		return p.CallContext.SessionID
	}
	return p.SessionID
}

// Pending is a request the world has recorded but not yet answered.
type Pending struct {
	entry  *calllog.Entry
	method string
	value  any
	err    error
	raw    json.RawMessage
}

// Accept records an arriving request. It is called in arrival order and
// must not block; Respond then produces the answer.
func (w *World) Accept(method string, raw json.RawMessage) *Pending {
	p := &Pending{method: method, raw: raw}
	var cc wire.CallContext
	var label string
	switch method {
	case wire.MethodContextAssemble:
		var v wire.ContextAssembleParams
		p.err, cc, label, p.value = decode(raw, &v), v.CallContext, "context/assemble", &v
	case wire.MethodHookDispatch:
		var v wire.HookDispatchParams
		p.err = decode(raw, &v)
		cc, label, p.value = v.CallContext, "hook "+v.Point+" "+v.Subscriber, &v
	case wire.MethodModelStream:
		var v wire.ModelStreamParams
		p.err, cc, label, p.value = decode(raw, &v), v.CallContext, "model/stream", &v
	case wire.MethodToolInvoke:
		var v wire.ToolInvokeParams
		p.err = decode(raw, &v)
		cc, label, p.value = v.CallContext, "invoke "+v.Tool, &v
	case wire.MethodToolPreview:
		var v wire.ToolPreviewParams
		p.err = decode(raw, &v)
		cc, label, p.value = v.CallContext, "preview "+v.Tool, &v
	case wire.MethodFrontendPermission:
		var v wire.PermissionParams
		p.err = decode(raw, &v)
		var tools []string
		for _, it := range v.Items {
			tools = append(tools, it.Tool)
		}
		cc, label, p.value = v.CallContext, "permission "+strings.Join(tools, ","), &v
	case wire.MethodFrontendInteractive:
		var v wire.InteractiveParams
		p.err = decode(raw, &v)
		cc, label, p.value = v.CallContext, "interactive "+v.ToolName, &v
	case wire.MethodFrontendConfirm:
		var v wire.ConfirmParams
		p.err = decode(raw, &v)
		cc, label, p.value = v.CallContext, "confirm "+v.Tool, &v
	default:
		p.err = fmt.Errorf("unknown method %q", method)
		label = method
	}
	if p.err != nil {
		w.problem("%s: %v", method, p.err)
	}
	p.entry = w.Log.Begin(calllog.Request, method, cc.SessionID, cc.TurnID, label, raw, deref(p.value))
	return p
}

func deref(v any) any {
	switch x := v.(type) {
	case *wire.ContextAssembleParams:
		return *x
	case *wire.HookDispatchParams:
		return *x
	case *wire.ModelStreamParams:
		return *x
	case *wire.ToolInvokeParams:
		return *x
	case *wire.ToolPreviewParams:
		return *x
	case *wire.PermissionParams:
		return *x
	case *wire.InteractiveParams:
		return *x
	case *wire.ConfirmParams:
		return *x
	}
	return v
}

// Respond plays the fakes' part for an accepted request and records the
// answer.
func (w *World) Respond(ctx context.Context, p *Pending) (any, error) {
	res, err := w.respond(ctx, p)
	w.Log.Finish(p.entry, res, err)
	if err != nil {
		return nil, err
	}
	return res, nil
}

func (w *World) respond(ctx context.Context, p *Pending) (any, error) {
	if p.err != nil {
		return nil, &jsonrpc.Error{Code: wire.CodeInvalidParams, Message: p.err.Error()}
	}
	switch v := p.value.(type) {
	case *wire.ContextAssembleParams:
		text := w.ContextText(v.Turn)
		if v.Reduce && w.ReducedText != nil {
			text = w.ReducedText(v.Turn)
		}
		return wire.ContextAssembleResult{Contributions: []wire.Contribution{{Source: "conform-context", Text: text}}}, nil
	case *wire.HookDispatchParams:
		return w.Hooks.dispatch(ctx, w.done, *v, p.raw)
	case *wire.ModelStreamParams:
		r, n, err := w.modelReply(ctx, v.CallContext.SessionID, v.Purpose) // a child's from its profile (spawn.go)
		if err != nil {
			return nil, err
		}
		if wait := afterOf(r); wait != nil {
			select {
			case <-wait:
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-w.done:
				return nil, errHeld
			}
		}
		if !r.Hang {
			return r.stream(n), nil
		}
		if w.Model.OnHang != nil {
			w.Model.OnHang(v.CallContext.SessionID)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-w.done:
			return nil, errHeld
		}
	case *wire.ToolInvokeParams:
		if w.Agents.spawnCapable(v.Tool) {
			return w.Agents.invoke(ctx, *v) // spawn.go
		}
		return w.Tools.invoke(ctx, w.done, *v)
	case *wire.ToolPreviewParams:
		return w.Tools.preview(ctx, w.done, *v)
	case *wire.PermissionParams:
		return w.Frontend.permission(ctx, w.done, *v)
	case *wire.InteractiveParams:
		return w.Frontend.interactive(ctx, w.done, *v)
	case *wire.ConfirmParams:
		return w.DF.confirm(ctx, *v) // dfirst.go
	}
	return nil, &jsonrpc.Error{Code: wire.CodeMethodNotFound, Message: "unknown method " + p.method}
}

func decode(raw json.RawMessage, v any) error { return json.Unmarshal(raw, v) }

func afterOf(r Reply) <-chan struct{} {
	if r.After == nil {
		return nil
	}
	return r.After()
}

// Notify records one kernel → harness notification.
func (w *World) Notify(method string, raw json.RawMessage) {
	var label, session, turn string
	var v any
	switch method {
	case wire.NotifyTraceSpan:
		var s wire.Span
		if decode(raw, &s) == nil {
			w.mu.Lock()
			w.spans = append(w.spans, s)
			w.mu.Unlock()
			label, session, turn, v = "span "+s.Role+" "+s.Name, s.SessionID, s.TurnID, s
		}
	case wire.NotifyCostUsage:
		var c wire.CostUsage
		if decode(raw, &c) == nil {
			w.mu.Lock()
			w.costs = append(w.costs, c)
			w.mu.Unlock()
			label, session, turn, v = fmt.Sprintf("cost %.9f", c.CostUSD), c.SessionID, c.TurnID, c
		}
	case wire.NotifySessionMeta:
		var m wire.SessionMeta
		if decode(raw, &m) == nil {
			w.mu.Lock()
			w.metas = append(w.metas, m)
			w.mu.Unlock()
			label, session, v = "session_meta "+m.Status, m.SessionID, m
		}
	case wire.NotifyEvent:
		var ev wire.Event
		if decode(raw, &ev) == nil {
			w.mu.Lock()
			w.events = append(w.events, ev)
			w.mu.Unlock()
			label, session, turn, v = "event "+ev.Kind, ev.SessionID, ev.TurnID, ev
			if w.OnEvent != nil {
				defer w.OnEvent(ev) // after the event is in the log
			}
		}
	default:
		label = "notification " + method
	}
	w.Log.Begin(calllog.Notification, method, session, turn, label, raw, v)
}

// Spans, Costs, Metas and Events are snapshots of the notifications.
func (w *World) Spans() []wire.Span {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]wire.Span(nil), w.spans...)
}

func (w *World) Costs() []wire.CostUsage {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]wire.CostUsage(nil), w.costs...)
}

func (w *World) Metas() []wire.SessionMeta {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]wire.SessionMeta(nil), w.metas...)
}

func (w *World) Events() []wire.Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]wire.Event(nil), w.events...)
}
