package main

import (
	"context"
	"sync"

	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/spec/wire"
	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/schema"
)

// run is one session: the kit's session helpers and the langchaingo
// callbacks handler that maps the framework's callbacks onto hook points.
// langchaingo's callbacks return nothing, so every subscriber is dispatched
// in the mode the config declares and what it answers is dropped: a
// transform changes nothing, a veto stops nothing (PROTOCOL.md §7.2, "a
// kernel whose hooks can only observe"). There is no plan-ready or
// post-apply point: the framework has no plan.
type run struct {
	callbacks.SimpleHandler
	s *kernelkit.Session

	mu     sync.Mutex
	turn   *kernelkit.Turn    // the turn of the model call in flight and of its tools
	specs  []wire.ToolSpec    // the tools the current model request offers
	reply  *kernelkit.Reply   // the current model call's folded stream
	action schema.AgentAction // the executor's current action (HandleAgentAction)
	input  string             // the current tool call's input
}

var _ callbacks.Handler = (*run)(nil)

func (r *run) turnID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.turn == nil {
		return ""
	}
	return r.turn.ID
}

func (r *run) dispatch(ctx context.Context, p wire.HookPayload) {
	_, _ = r.s.Dispatch(ctx, r.turnID(), p)
}

// HandleChainStart: chains.Call starts the executor (chains/chains.go:47).
func (r *run) HandleChainStart(ctx context.Context, _ map[string]any) {
	_ = r.s.Start(ctx) // running row and session-start subscribers
}

// HandleLLMGenerateContentStart is called by the model before its request,
// as langchaingo's own providers do (llms/openai/openaillm.go:106).
func (r *run) HandleLLMGenerateContentStart(ctx context.Context, ms []llms.MessageContent) {
	r.mu.Lock()
	specs := r.specs
	r.mu.Unlock()
	r.dispatch(ctx, wire.HookPayload{Variant: wire.PointPreModelCall, Model: r.s.Config.Model.Name, Messages: toWire(ms), Tools: specs})
}

// HandleLLMGenerateContentEnd and HandleLLMError are the post-model-response point.
func (r *run) HandleLLMGenerateContentEnd(ctx context.Context, _ *llms.ContentResponse) {
	r.postModel(ctx)
}

func (r *run) HandleLLMError(ctx context.Context, _ error) { r.postModel(ctx) }

func (r *run) postModel(ctx context.Context) {
	r.mu.Lock()
	rep := r.reply
	r.mu.Unlock()
	if rep == nil {
		return // the request itself failed: there is no response to show
	}
	r.dispatch(ctx, wire.HookPayload{Variant: wire.PointPostModelResponse, Message: &rep.Message, Usage: &rep.Usage, CostUSD: &rep.CostUSD, StopReason: rep.StopReason, Error: rep.Error})
}

// HandleAgentAction: the executor announces each action before it looks
// its tool up (agents/executor.go:126); the tool needs its call id.
func (r *run) HandleAgentAction(_ context.Context, a schema.AgentAction) {
	r.mu.Lock()
	r.action = a
	r.mu.Unlock()
}

// call is the executor's current action as a hook's tool call.
func (r *run) call(input string) *wire.ToolCall {
	r.mu.Lock()
	a := r.action
	r.mu.Unlock()
	t, _ := r.s.Tool(a.Tool)
	return &wire.ToolCall{ID: a.ToolID, Name: a.Tool, Provider: t.Provider, Kind: t.Kind, Input: inputJSON(input)}
}

// HandleToolStart, HandleToolEnd and HandleToolError are called by the tool
// itself, as langchaingo's tools do (tools/calculator.go:35); they get the
// input and output strings, so the action says which call it is. A tool's
// result reaches them as its output text: a langchaingo tool returns
// (string, error) and has no is_error.
func (r *run) HandleToolStart(ctx context.Context, input string) {
	r.mu.Lock()
	r.input = input
	r.mu.Unlock()
	r.dispatch(ctx, wire.HookPayload{Variant: wire.PointPreToolCall, Call: r.call(input)})
}

func (r *run) HandleToolEnd(ctx context.Context, output string) {
	r.postTool(ctx, wire.ToolResult{Content: output})
}

func (r *run) HandleToolError(ctx context.Context, err error) {
	r.postTool(ctx, wire.ToolResult{Content: err.Error(), IsError: true}) // the callback gets no category
}

func (r *run) postTool(ctx context.Context, res wire.ToolResult) {
	r.mu.Lock()
	input := r.input
	r.mu.Unlock()
	r.dispatch(ctx, wire.HookPayload{Variant: wire.PointPostToolCall, Call: r.call(input), Result: &res})
}
