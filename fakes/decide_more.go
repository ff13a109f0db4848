package fakes

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

// More second-connection scripts (PA-16): several decisions or answers in
// one frontend/decide, and an answer sent after the call it names is over.

// ToolDecision is a second connection's decision about the item of a
// tool's call.
type ToolDecision struct {
	Tool     string
	Decision string // ALLOW or DENY
	Scope    string // default ONCE
}

// DecideTogether scripts a second frontend connection that decides the
// items of several tools' calls in ONE frontend/decide, sent while the
// primary's first permission request about any of them is pending; the
// primary's own answers (primary, per tool) wait until the kernel has
// answered that frontend/decide. An item the pending request does not
// carry (a kernel that asks one item at a time) is named by the id its
// plan_item event gave it.
func (w *World) DecideTogether(connection string, ds []ToolDecision, primary map[string]Permission) {
	var once sync.Once
	var answered <-chan struct{}
	for tool, p := range primary {
		p.Before = func(ctx context.Context, done <-chan struct{}, cc wire.CallContext, it wire.PlanItem) error {
			once.Do(func() {
				var pds []wire.PlanDecision
				for _, d := range ds {
					id := it.ID
					if d.Tool != it.Tool {
						id = w.itemOfTool(cc.SessionID, d.Tool)
					}
					if id == "" {
						continue
					}
					scope := d.Scope
					if scope == "" {
						scope = wire.ScopeOnce
					}
					pds = append(pds, wire.PlanDecision{PlanItemID: id, Decision: d.Decision, Scope: scope})
				}
				answered = w.SendDecide(cc, connection, pds)
			})
			return await(ctx, done, answered)
		}
		w.Frontend.AddPermission(tool, p)
	}
}

// itemOfTool is the plan item id of a tool's call in a session: from the
// permission requests so far, else from the plan_item events.
func (w *World) itemOfTool(session, tool string) string {
	if id := w.askedItemWhere(session, func(it wire.PlanItem) bool { return it.Tool == tool }); id != "" {
		return id
	}
	for _, e := range w.Log.Entries() {
		ev, ok := e.Value.(wire.Event)
		if !ok || ev.SessionID != session || ev.Kind != wire.EventPlanItem {
			continue
		}
		if t, _ := ev.Payload["tool"].(string); t == tool {
			for _, k := range []string{"plan_item_id", "id"} {
				if id, _ := ev.Payload[k].(string); id != "" {
					return id
				}
			}
		}
	}
	return ""
}

// ToolAnswer is a second connection's answer to the call of an
// interactive tool.
type ToolAnswer struct {
	Tool     string
	Response string
}

// AnswerTogetherFirst scripts a second frontend connection that answers
// the calls of several interactive tools in ONE frontend/decide, sent while
// the primary's frontend/interactive about the first of them (first) is
// pending; the primary's own answer to it (primary) waits until the kernel
// has answered that frontend/decide. A call not yet waiting is named by
// the id the model gave it.
func (w *World) AnswerTogetherFirst(first, connection string, as []ToolAnswer, primary Interactive) {
	var once sync.Once
	var answered <-chan struct{}
	primary.Before = func(ctx context.Context, done <-chan struct{}, p wire.InteractiveParams) error {
		once.Do(func() {
			var rs []wire.InteractiveResponse
			for _, a := range as {
				id := p.CallID
				if a.Tool != p.ToolName {
					id = w.modelCallOf(p.CallContext.SessionID, a.Tool)
				}
				if id != "" {
					rs = append(rs, wire.InteractiveResponse{CallID: id, Response: a.Response})
				}
			}
			answered = w.sendDecide(p.CallContext, wire.FrontendDecideParams{SessionID: p.CallContext.SessionID, Connection: connection,
				Decisions: []wire.PlanDecision{}, InteractiveResponses: rs})
		})
		return await(ctx, done, answered)
	}
	w.Frontend.SetInteractive(first, primary)
}

// modelCallOf is the id of the first call to a tool the fake model made in
// a session.
func (w *World) modelCallOf(session, tool string) string {
	for _, e := range w.Log.Entries() {
		if e.Method != wire.MethodModelStream || e.SessionID != session || len(e.Result) == 0 {
			continue
		}
		var r wire.ModelStreamResult
		if json.Unmarshal(e.Result, &r) != nil {
			continue
		}
		for _, ev := range r.Events {
			if ev.Type == wire.EventToolCall && ev.Name == tool {
				return ev.ID
			}
		}
	}
	return ""
}

// AnswerWhileRunning scripts a second frontend connection that answers the
// call of an interactive tool once the kernel invokes another tool (tool):
// the invoke is held until the kernel has answered that frontend/decide.
// It names the interactive call by the call_id of the session's first
// frontend/interactive about it; with none, the invoke runs as scripted.
// The same frontend/decide also answers StrayCallID, a call that never
// was: a kernel must answer every entry of a decide, not only its first.
func (w *World) AnswerWhileRunning(tool, interactiveTool, connection, response string) {
	w.Tools.Update(tool, func(b *ToolBehavior) {
		b.OnStart = func(ctx context.Context, done <-chan struct{}, p wire.ToolInvokeParams) error {
			id := ""
			for _, e := range w.Log.Entries() {
				if v, ok := e.Value.(wire.InteractiveParams); ok && v.CallContext.SessionID == p.CallContext.SessionID && v.ToolName == interactiveTool {
					id = v.CallID
					break
				}
			}
			if id == "" {
				return nil
			}
			return await(ctx, done, w.sendDecide(p.CallContext, wire.FrontendDecideParams{SessionID: p.CallContext.SessionID, Connection: connection,
				Decisions: []wire.PlanDecision{}, InteractiveResponses: []wire.InteractiveResponse{{CallID: id, Response: response}, {CallID: StrayCallID, Response: response}}}))
		}
	})
}

// StrayCallID is the call_id of an interactive answer no call waits for;
// StrayPlanItemID the id of a decision about an item that never was.
const (
	StrayCallID     = "conform-no-such-call"
	StrayPlanItemID = "conform-no-such-item"
)

// DecideAfterCancel scripts the primary's permission request about a
// tool's call: the harness cancels the session while the request is
// pending, and once the kernel has given up on the item and dispatches
// session-end to subscriber (held meanwhile), a second frontend connection
// sends its decision about the item. The subscriber is held until the
// kernel has answered that frontend/decide. If the kernel does not
// dispatch session-end to subscriber within timeout, no decision is sent;
// a kernel that keeps waiting for the permission answer gets decision then.
// The frontend/decide also decides StrayPlanItemID: every entry of it must
// be answered, not only its first.
func (w *World) DecideAfterCancel(tool, connection, decision, subscriber string, timeout time.Duration) {
	bar, gate := NewBarrier(2, timeout), NewGate()
	b := w.Hooks.Get(subscriber)
	b.Barrier, b.Gate, b.GateAfterBarrier = bar, gate, true
	w.Hooks.Set(subscriber, b)
	w.Frontend.AddPermission(tool, Permission{Decision: decision, Scope: wire.ScopeOnce,
		Before: func(ctx context.Context, done <-chan struct{}, cc wire.CallContext, it wire.PlanItem) error {
			over := make(chan struct{})
			go func() {
				defer close(over)
				defer gate.Open()
				bar.Arrive(context.Background(), done)
				if bar.Opened() {
					<-w.SendDecide(cc, connection, []wire.PlanDecision{{PlanItemID: it.ID, Decision: decision, Scope: wire.ScopeOnce},
						{PlanItemID: StrayPlanItemID, Decision: decision, Scope: wire.ScopeOnce}})
				}
			}()
			w.Agents.Cancel(cc.SessionID)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-done:
				return errHeld
			case <-over:
				return nil
			}
		}})
}
