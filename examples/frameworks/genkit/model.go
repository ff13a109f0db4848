package main

import (
	"context"
	"encoding/json"

	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/spec/wire"
	"github.com/firebase/genkit/go/ai"
	"go.opentelemetry.io/otel/trace"
)

// generate is the model (ai.ModelFunc): one model/stream per call, each a
// turn of its own. Generate has no context step, so no context/assemble is
// sent (PROTOCOL.md §12).
func (r *run) generate(ctx context.Context, req *ai.ModelRequest, _ ai.ModelStreamCallback) (*ai.ModelResponse, error) {
	s := r.s
	r.mu.Lock()
	turn := r.turn
	r.mu.Unlock()
	res, err := s.Host.Stream(ctx, wire.ModelStreamParams{
		CallContext: s.CallContext(turn.ID), Purpose: wire.PurposeTurn, Model: s.Config.Model.Name,
		Messages: toWire(req.Messages), Tools: toSpecs(req.Tools), AssembledContext: []wire.Contribution{}, Attempt: 1,
	})
	if err != nil {
		return nil, err
	}
	rep := kernelkit.Fold(res.Events)
	for _, e := range res.Events {
		if e.Type == wire.EventUsage && e.Usage != nil {
			c, _ := s.Charge(turn.ID, *e.Usage) // reporting only: Generate has no budget
			rep.CostUSD += c
		}
	}
	r.mu.Lock()
	r.last = &rep
	r.mu.Unlock()
	if rep.Error != nil {
		return nil, &kernelkit.ModelFailure{Err: *rep.Error}
	}
	msg := &ai.Message{Role: ai.RoleModel}
	for _, b := range rep.Message.Content {
		switch b.Type {
		case wire.BlockText:
			msg.Content = append(msg.Content, ai.NewTextPart(b.Text))
		case wire.BlockToolUse:
			var in any
			_ = json.Unmarshal(b.Input, &in)
			msg.Content = append(msg.Content, ai.NewToolRequestPart(&ai.ToolRequest{Name: b.Name, Input: in, Ref: b.ID}))
			r.mu.Lock()
			k := key(b.Name, in)
			r.refs[k] = append(r.refs[k], b.ID)
			r.mu.Unlock()
		}
	}
	// Request: a model plugin's to set (History, which a resume after an interrupt reads, is the request's messages and the reply).
	return &ai.ModelResponse{Request: req, Message: msg, FinishReason: ai.FinishReasonStop, Usage: &ai.GenerationUsage{
		InputTokens: int(rep.Usage.InputTokens), OutputTokens: int(rep.Usage.OutputTokens),
	}}, nil
}

// hooks is a Genkit model middleware (ai.WithMiddleware): the
// pre-model-call chain runs before the model, and its transforms replace
// the request's messages, since a middleware may change the request; the
// post-model-response chain sees the reply or the failure. Genkit has no
// other hook point: no session, tool, plan or apply hooks.
func (r *run) hooks(next ai.ModelFunc) ai.ModelFunc {
	return func(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
		s := r.s
		turn := s.Begin()
		r.mu.Lock()
		r.turn, r.last = turn, nil
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
			r.spans[sc.SpanID().String()] = turn.ID // the middleware runs inside Genkit's span of this loop iteration (trace.go)
		}
		r.mu.Unlock()
		sent := toWire(req.Messages)
		out, err := s.Dispatch(ctx, turn.ID, wire.HookPayload{Variant: wire.PointPreModelCall, Model: s.Config.Model.Name, Messages: sent, Tools: toSpecs(req.Tools)})
		if err != nil {
			return nil, err
		}
		if changed, _ := json.Marshal(out.Payload.Messages); string(changed) != mustJSON(sent) {
			req.Messages = fromWire(out.Payload.Messages)
		}
		resp, err := next(ctx, req, cb)
		r.mu.Lock()
		rep := r.last
		r.mu.Unlock()
		if rep != nil {
			post := wire.HookPayload{Variant: wire.PointPostModelResponse, Message: &rep.Message, Usage: &rep.Usage, CostUSD: &rep.CostUSD, StopReason: rep.StopReason, Error: rep.Error}
			if _, herr := s.Dispatch(ctx, turn.ID, post); herr != nil && err == nil {
				return nil, herr
			}
		}
		if err == nil && resp != nil {
			r.planReady(turn.ID, resp.Message)
		}
		return resp, err
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func toSpecs(ts []*ai.ToolDefinition) []wire.ToolSpec {
	out := []wire.ToolSpec{}
	for _, t := range ts {
		out = append(out, wire.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	return out
}

// toWire: model → assistant, tool → user with tool_result blocks (a
// non-string output as its JSON text), system → system, user → user.
func toWire(ms []*ai.Message) []wire.Message {
	out := []wire.Message{}
	for _, m := range ms {
		role := "user"
		switch m.Role {
		case ai.RoleModel:
			role = "assistant"
		case ai.RoleSystem:
			role = "system"
		}
		msg := wire.Message{Role: role, Content: []wire.ContentBlock{}}
		for _, p := range m.Content {
			switch {
			case p.IsToolRequest():
				in, _ := json.Marshal(p.ToolRequest.Input)
				msg.Content = append(msg.Content, wire.ContentBlock{Type: wire.BlockToolUse, ID: p.ToolRequest.Ref, Name: p.ToolRequest.Name, Input: in})
			case p.IsToolResponse():
				o, _ := json.Marshal(p.ToolResponse.Output)
				msg.Content = append(msg.Content, wire.ContentBlock{Type: wire.BlockToolResult, ToolUseID: p.ToolResponse.Ref, Content: kernelkit.OutputText(o)})
			case p.IsText():
				msg.Content = append(msg.Content, wire.ContentBlock{Type: wire.BlockText, Text: p.Text})
			}
		}
		out = append(out, msg)
	}
	return out
}

// fromWire is toWire's inverse, for the messages a transform returned.
func fromWire(ms []wire.Message) []*ai.Message {
	out := []*ai.Message{}
	for _, m := range ms {
		role := ai.RoleUser
		switch m.Role {
		case "assistant":
			role = ai.RoleModel
		case "system":
			role = ai.RoleSystem
		}
		msg := &ai.Message{Role: role}
		for _, b := range m.Content {
			switch b.Type {
			case wire.BlockText:
				msg.Content = append(msg.Content, ai.NewTextPart(b.Text))
			case wire.BlockToolUse:
				var in any
				_ = json.Unmarshal(b.Input, &in)
				msg.Content = append(msg.Content, ai.NewToolRequestPart(&ai.ToolRequest{Name: b.Name, Input: in, Ref: b.ID}))
			case wire.BlockToolResult:
				msg.Role = ai.RoleTool
				msg.Content = append(msg.Content, ai.NewToolResponsePart(&ai.ToolResponse{Ref: b.ToolUseID, Output: b.Content}))
			}
		}
		out = append(out, msg)
	}
	return out
}
