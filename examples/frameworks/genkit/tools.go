package main

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/spec/wire"
	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
)

// run is one session. A Genkit tool gets its input but not the request's
// ref, so the refs of the last reply's tool requests wait here, by name
// and input, for the tool to take one.
type run struct {
	s *kernelkit.Session

	mu    sync.Mutex
	turn  *kernelkit.Turn
	last  *kernelkit.Reply // the model call in flight's folded stream
	refs  map[string][]string
	items map[string]wire.PlanItem // the plan rows, by call id (plan.go)
	spans map[string]string        // Genkit's "generate" span id → the turn it ran (trace.go)
}

func key(name string, input any) string {
	b, _ := json.Marshal(input) // map keys sorted: the same input, the same key
	return name + " " + string(b)
}

func (r *run) take(name string, input any) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := key(name, input)
	q := r.refs[k]
	if len(q) == 0 {
		return ""
	}
	r.refs[k] = q[1:]
	return q[0]
}

func (r *run) turnID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.turn == nil {
		return ""
	}
	return r.turn.ID
}

// defineTool is a Genkit tool run by tool/invoke. Genkit has no tool hook
// point and no error result: a provider's is_error output is the tool's
// output, a failed request the tool's error (which ends Generate,
// ai/generate.go:791-830). Before it runs, the glue's policy: a read or an
// interactive call passes a precheck (allow or deny; an ask is downgraded,
// PA-06/PA-09); a resource call follows its plan row (deny, or ask: a
// Genkit interrupt the caller answers, plan.go), then the plan-ready veto
// chain. An interactive call interrupts, and the caller answers it with the
// human's reply (PA-15).
func (r *run) defineTool(g *genkit.Genkit, t wire.ToolSchema) ai.Tool {
	schema := t.InputSchema
	if schema == nil {
		schema = map[string]any{"type": "object"}
	}
	return genkit.DefineToolWithInputSchema(g, t.Name, t.Description, schema, func(tc *ai.ToolContext, in any) (any, error) {
		callID, resumed := tc.Resumed["call_id"].(string) // a restart carries the call it resumes (plan.go)
		if !resumed {
			callID = r.take(t.Name, in)
		}
		if answer, ok := tc.Resumed["answer"].(string); ok { // the human's reply, or the frontend's denial (plan.go answered)
			return answer, nil
		}
		turnID := r.turnID()
		decision, by := r.decide(t)
		switch {
		case t.Kind != wire.KindResource && decision == wire.PolicyDeny:
			return "denied by policy rule " + by, nil
		case t.Kind != wire.KindResource && decision == wire.PolicyAsk:
			r.s.Event(turnID, wire.EventAskDowngrade, map[string]any{"call_id": callID, "tool": t.Name, "kind": t.Kind, "rule": by})
			return fmt.Sprintf("ask downgraded to deny by policy rule %s: a %s call is never asked about", by, t.Kind), nil
		case t.Kind == wire.KindInteractive:
			return nil, ai.InterruptWith(tc, interrupt{Kind: "interactive", CallID: callID})
		case t.Kind == wire.KindResource && !resumed:
			item, _ := r.item(callID)
			switch item.Decision {
			case wire.PolicyDeny:
				return "denied by policy rule " + item.DecidedBy, nil
			case wire.PolicyAsk:
				return nil, ai.InterruptWith(tc, interrupt{Kind: "permission", CallID: callID})
			}
		}
		if t.Kind == wire.KindResource { // allowed, or approved by the frontend: the plan-ready veto chain (HD-11)
			item, _ := r.item(callID)
			if tc.OriginalInput != nil { // restarted with a corrected input
				item.Input, _ = json.Marshal(in)
			}
			veto, err := r.s.Dispatch(tc, turnID, wire.HookPayload{Variant: wire.PointPlanReady, Plan: &wire.Plan{Items: []wire.PlanItem{item}}})
			if err != nil {
				return nil, err
			}
			if veto.Denied {
				return "denied by " + veto.By + ": " + veto.Reason, nil
			}
		}
		input, _ := json.Marshal(in)
		res, err := r.s.Host.Invoke(tc, wire.ToolInvokeParams{
			CallContext: r.s.CallContext(turnID), CallID: callID, Provider: t.Provider,
			Tool: t.Name, Input: input, Attempt: 1,
		})
		if err != nil {
			return nil, err
		}
		var out any
		_ = json.Unmarshal(res.Output, &out)
		return out, nil
	})
}
