package main

import (
	"context"
	"encoding/json"

	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/spec/wire"
	"github.com/tmc/langchaingo/llms"
)

// model is an llms.Model whose provider is the harness's model/stream. It
// does what a langchaingo provider does (llms/openai/openaillm.go): convert
// the messages and the offered functions, call, report the callbacks, and
// convert the answer. Each call is a turn of its own: the executor has no
// context step, so no context/assemble is sent (PROTOCOL.md §12).
type model struct{ r *run }

var _ llms.Model = (*model)(nil)

func (m *model) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

func (m *model) GenerateContent(ctx context.Context, ms []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	r, s := m.r, m.r.s
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	turn := s.Begin()
	specs := toSpecs(o)
	r.mu.Lock()
	r.turn, r.specs, r.reply = turn, specs, nil
	r.mu.Unlock()
	r.HandleLLMGenerateContentStart(ctx, ms)
	res, err := s.Host.Stream(ctx, wire.ModelStreamParams{
		CallContext: s.CallContext(turn.ID), Purpose: wire.PurposeTurn, Model: s.Config.Model.Name,
		Messages: toWire(ms), Tools: specs, AssembledContext: []wire.Contribution{}, Attempt: 1,
	})
	if err != nil {
		r.HandleLLMError(ctx, err)
		return nil, err
	}
	rep := kernelkit.Fold(res.Events)
	for _, e := range res.Events {
		if e.Type == wire.EventUsage && e.Usage != nil {
			c, _ := s.Charge(turn.ID, *e.Usage) // reporting only: the executor has no budget
			rep.CostUSD += c
		}
	}
	r.mu.Lock()
	r.reply = &rep
	r.mu.Unlock()
	if rep.Error != nil {
		err := &kernelkit.ModelFailure{Err: *rep.Error}
		r.HandleLLMError(ctx, err)
		return nil, err
	}
	choice := &llms.ContentChoice{StopReason: rep.StopReason, GenerationInfo: map[string]any{
		"PromptTokens": int(rep.Usage.InputTokens), "CompletionTokens": int(rep.Usage.OutputTokens),
	}}
	for _, b := range rep.Message.Content {
		switch b.Type {
		case wire.BlockText:
			choice.Content += b.Text
		case wire.BlockToolUse:
			fc := &llms.FunctionCall{Name: b.Name, Arguments: string(b.Input)}
			choice.ToolCalls = append(choice.ToolCalls, llms.ToolCall{ID: b.ID, Type: "function", FunctionCall: fc})
			if choice.FuncCall == nil {
				choice.FuncCall = fc
			}
		}
	}
	resp := &llms.ContentResponse{Choices: []*llms.ContentChoice{choice}}
	r.HandleLLMGenerateContentEnd(ctx, resp)
	return resp, nil
}

// toSpecs are the functions and tools the request offers, with the
// parameters the agent gives them.
func toSpecs(o llms.CallOptions) []wire.ToolSpec {
	out := []wire.ToolSpec{}
	for _, f := range o.Functions {
		out = append(out, wire.ToolSpec{Name: f.Name, Description: f.Description, InputSchema: schemaOf(f.Parameters)})
	}
	for _, t := range o.Tools {
		if t.Function != nil {
			out = append(out, wire.ToolSpec{Name: t.Function.Name, Description: t.Function.Description, InputSchema: schemaOf(t.Function.Parameters)})
		}
	}
	return out
}

func schemaOf(p any) map[string]any {
	b, _ := json.Marshal(p)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// toWire converts langchaingo's messages: ai → assistant (text, tool calls
// as tool_use), system → system, human and generic → user, and the tool
// responses as tool_result blocks of a user message, consecutive ones
// sharing it, as Anthropic-style providers require.
func toWire(ms []llms.MessageContent) []wire.Message {
	out := []wire.Message{}
	for _, m := range ms {
		role := "user"
		switch m.Role {
		case llms.ChatMessageTypeAI:
			role = "assistant"
		case llms.ChatMessageTypeSystem:
			role = "system"
		}
		msg := wire.Message{Role: role, Content: []wire.ContentBlock{}}
		results := false
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				msg.Content = append(msg.Content, wire.ContentBlock{Type: wire.BlockText, Text: p.Text})
			case llms.ToolCall:
				if p.FunctionCall != nil {
					msg.Content = append(msg.Content, wire.ContentBlock{Type: wire.BlockToolUse, ID: p.ID, Name: p.FunctionCall.Name, Input: inputJSON(p.FunctionCall.Arguments)})
				}
			case llms.ToolCallResponse:
				results = true
				msg.Content = append(msg.Content, wire.ContentBlock{Type: wire.BlockToolResult, ToolUseID: p.ToolCallID, Content: p.Content})
			}
		}
		if n := len(out); results && n > 0 && out[n-1].Role == "user" && isResults(out[n-1]) {
			out[n-1].Content = append(out[n-1].Content, msg.Content...)
			continue
		}
		out = append(out, msg)
	}
	return out
}

func isResults(m wire.Message) bool {
	return len(m.Content) > 0 && m.Content[0].Type == wire.BlockToolResult
}

// inputJSON is a tool input string as JSON: itself when it is JSON, else
// a JSON string.
func inputJSON(s string) json.RawMessage {
	if json.Valid([]byte(s)) && s != "" {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}
