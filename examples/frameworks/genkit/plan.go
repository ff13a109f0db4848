package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentconform/conform/spec/wire"
	"github.com/firebase/genkit/go/ai"
	"github.com/xeipuuv/gojsonschema"
)

// The policy and the human in the loop. Genkit has no policy, no plan and
// no approval: it has tool interrupts (ai/tools.go:198 ToolContext.Interrupt),
// which end Generate with FinishReasonInterrupted and the interrupted
// requests in resp.Interrupts() (ai/generate.go:952), and a resume: the
// caller answers each one with ToolDef.RestartWith (run the tool again, with
// new input or resumed metadata if it likes, ai/tools.go:678) or
// ToolDef.RespondWith (its output, ai/tools.go:644), and calls Generate
// again with the history and WithToolRestarts / WithToolResponses
// (ai/option.go:920-927), as its sample samples/intermediate-interrupts
// does. That is how this adapter
// asks the frontend: a resource call an ask rule names, and an interactive
// call, interrupt; the answers resume.
//
// What is glue: the policy table (a rule, else the default by kind, PA-10),
// the plan_item rows, the plan-ready veto chain, and the check of a
// corrected input before a restart (with gojsonschema, the validator Genkit
// itself runs on a restarted tool's input, core/action.go:242, so that a
// bad correction is refused and asked again instead of ending Generate).

// interrupt is the metadata of this adapter's interrupts.
type interrupt struct {
	Kind   string `json:"kind"` // "permission" or "interactive"
	CallID string `json:"call_id"`
}

// decide is the policy's decision on a tool: its first matching rule, else
// the specification's default (PA-10: a resource call asks, a read or an
// interactive call is allowed).
func (r *run) decide(t wire.ToolSchema) (decision, by string) {
	for _, rule := range r.s.Config.Policy.Rules {
		if (rule.Provider == "" || rule.Provider == t.Provider) && (rule.Tool == "" || rule.Tool == t.Name) && (rule.Kind == "" || rule.Kind == t.Kind) {
			return rule.Decision, rule.Name
		}
	}
	if t.Kind == wire.KindResource {
		return wire.PolicyAsk, "default"
	}
	return wire.PolicyAllow, "default"
}

// planReady writes a plan_item row for every resource call of a reply
// (PA-14), when the reply is in and before any of its calls runs: Genkit
// runs a reply's tool requests at once, so the rows cannot wait for the
// tools. Called from the model middleware.
func (r *run) planReady(turnID string, msg *ai.Message) {
	if msg == nil {
		return
	}
	for _, p := range msg.Content {
		if !p.IsToolRequest() {
			continue
		}
		t, ok := r.s.Tool(p.ToolRequest.Name)
		if !ok || t.Kind != wire.KindResource {
			continue
		}
		decision, by := r.decide(t)
		in, _ := json.Marshal(p.ToolRequest.Input)
		item := wire.PlanItem{ID: turnID + "/" + p.ToolRequest.Ref, ToolCallID: p.ToolRequest.Ref, Provider: t.Provider, Tool: t.Name, Kind: t.Kind,
			Risk: t.Risk, Description: t.Description, Input: in, Decision: decision, DecidedBy: by}
		r.mu.Lock()
		r.items[item.ToolCallID] = item
		r.mu.Unlock()
		row := map[string]any{}
		b, _ := json.Marshal(item)
		_ = json.Unmarshal(b, &row)
		row["turn_id"] = turnID
		r.s.Event(turnID, wire.EventPlanItem, row)
	}
}

func (r *run) item(callID string) (wire.PlanItem, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	it, ok := r.items[callID]
	return it, ok
}

// answer asks the frontend about each interrupted request and returns the
// restarts to resume Generate with.
func (r *run) answer(ctx context.Context, parts []*ai.Part, tools map[string]ai.Tool) (restarts []*ai.Part, err error) {
	for _, p := range parts {
		meta, ok := ai.InterruptAs[interrupt](p)
		tool := tools[p.ToolRequest.Name]
		if !ok || tool == nil {
			return nil, fmt.Errorf("an interrupt this adapter did not make: %s", p.ToolRequest.Name)
		}
		t, _ := r.s.Tool(p.ToolRequest.Name)
		cc := r.s.CallContext(r.turnID())
		in, _ := json.Marshal(p.ToolRequest.Input)
		if meta.Kind == "interactive" { // PA-15: the human's reply is the call's result
			res, err := r.s.Host.Interactive(ctx, wire.InteractiveParams{CallContext: cc, CallID: meta.CallID, ToolName: t.Name, Prompt: t.Description, Input: in})
			if err != nil {
				return nil, err
			}
			restarts = append(restarts, answered(tool, p, meta.CallID, res.Response))
			continue
		}
		item, _ := r.item(meta.CallID)
		for {
			res, err := r.s.Host.Permission(ctx, wire.PermissionParams{CallContext: cc, Items: []wire.PlanItem{item}})
			if err != nil {
				return nil, err
			}
			var d wire.PlanDecision
			for _, x := range res.Decisions {
				if x.PlanItemID == item.ID {
					d = x
				}
			}
			if d.Decision != wire.DecisionAllow {
				restarts = append(restarts, answered(tool, p, meta.CallID, "denied by the user (frontend) for "+item.ID))
				break
			}
			opts := &ai.RestartOptions{ResumedMetadata: map[string]any{"call_id": meta.CallID}}
			if len(d.CorrectedInput) > 0 { // PA-17: Genkit's own replacement of a call's input, checked first
				var corrected any
				_ = json.Unmarshal(d.CorrectedInput, &corrected)
				if msg := invalid(d.CorrectedInput, t.InputSchema); msg != "" {
					r.s.Event(cc.TurnID, wire.EventError, map[string]any{"category": wire.FrontendErrInvalidClientEvent, "plan_item_id": item.ID,
						"tool_call_id": item.ToolCallID, "message": "the corrected input fails the tool's input schema: " + msg})
					continue // the item stays pending: asked again
				}
				opts.ReplaceInput = corrected
			}
			restarts = append(restarts, tool.Restart(p, opts))
			break
		}
	}
	return restarts, nil
}

// answered restarts an interrupted call with its answer for the tool to
// return. Genkit's RespondWith would be the plain way, but Genkit checks a
// response against the tool's output schema (ai/generate.go:1149-1163),
// which for this adapter's tools (output any) refuses a string; a restart
// with resumed metadata (ai/tools.go:181 WithResumedMetadata, read back as
// ToolContext.Resumed) gives the tool the answer to return instead.
func answered(tool ai.Tool, p *ai.Part, callID, text string) *ai.Part {
	return tool.Restart(p, &ai.RestartOptions{ResumedMetadata: map[string]any{"call_id": callID, "answer": text}})
}

// invalid says why in fails schema ("" when it passes, or when there is no
// schema, as for Genkit).
func invalid(in json.RawMessage, schema map[string]any) string {
	if schema == nil {
		return ""
	}
	res, err := gojsonschema.Validate(gojsonschema.NewGoLoader(schema), gojsonschema.NewBytesLoader(in))
	if err != nil {
		return err.Error()
	}
	if res.Valid() {
		return ""
	}
	msg := ""
	for _, e := range res.Errors() {
		msg += e.String() + "; "
	}
	return msg
}
