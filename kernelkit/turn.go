package kernelkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentconform/conform/spec/wire"
)

// Turn is one turn of a session: its number, its turn_id and what its
// context/assemble contributed. Its helpers run the steps of PROTOCOL.md
// §12 with the rules written on each.
type Turn struct {
	S             *Session
	N             int
	ID            string
	Contributions []wire.Contribution
	// Purpose is the model requests' purpose: wire.PurposeTurn when
	// empty, wire.PurposeFinalAnswer for the one turn after a bound.
	Purpose string
}

// Assemble is the turn's step 1: context/assemble on the history so far.
// Its contributions go to the turn's model requests unchanged.
func (t *Turn) Assemble(ctx context.Context, history []wire.Message) error {
	res, err := t.S.Host.Assemble(ctx, wire.ContextAssembleParams{CallContext: t.S.CallContext(t.ID), Turn: t.N, History: nonNil(history)})
	t.Contributions = res.Contributions
	return err
}

// Reply is one model call's outcome, folded from its stream.
type Reply struct {
	// Message is the assistant message: the text, then one tool_use
	// block per call, in the model's order.
	Message wire.Message
	// Calls are the message's tool_use blocks.
	Calls      []wire.ContentBlock
	Usage      wire.Usage
	StopReason string
	// Error is the stream's error event, if the call failed.
	Error *wire.ModelError
	// CostUSD is what Model charged for the call.
	CostUSD float64
}

// ModelFailure is the error of a model call whose stream ended with an
// error event (the Reply holds it too). Model does not retry: retrying is
// a loop's policy (ER-01..ER-07).
type ModelFailure struct{ Err wire.ModelError }

func (e *ModelFailure) Error() string {
	return "model error " + e.Err.Category + ": " + e.Err.Message
}

// Fold reads a stream's events into a Reply: the text deltas joined, the
// tool calls as tool_use blocks (a call without input gets {}), the usage
// events added up, the stop reason and the error.
func Fold(events []wire.StreamEvent) Reply {
	r := Reply{Message: wire.Message{Role: "assistant", Content: []wire.ContentBlock{}}}
	text := ""
	for _, e := range events {
		switch e.Type {
		case wire.EventTextDelta:
			text += e.Text
		case wire.EventToolCall:
			in := e.Input
			if len(in) == 0 || string(in) == "null" {
				in = json.RawMessage(`{}`)
			}
			r.Calls = append(r.Calls, wire.ContentBlock{Type: wire.BlockToolUse, ID: e.ID, Name: e.Name, Input: in})
		case wire.EventUsage:
			if e.Usage != nil {
				addUsage(&r.Usage, *e.Usage)
			}
		case wire.EventStop:
			r.StopReason = e.StopReason
		case wire.EventErrorSE:
			r.Error = e.Error
		}
	}
	if text != "" {
		r.Message.Content = append(r.Message.Content, wire.ContentBlock{Type: wire.BlockText, Text: text})
	}
	r.Message.Content = append(r.Message.Content, r.Calls...)
	return r
}

// Model is steps 2 to 5: the pre-model-call hooks (whose transforms may
// rewrite the messages of this request only), one model/stream request
// with the turn's contributions, a cost/usage report for every usage event
// (Charge), and the post-model-response hooks, which see the reply or the
// failure. A failed call returns its Reply and a *ModelFailure; an aborted
// transform chain a *HookAbort.
func (t *Turn) Model(ctx context.Context, messages []wire.Message, tools []wire.ToolSpec) (Reply, error) {
	s := t.S
	pre, err := s.Dispatch(ctx, t.ID, wire.HookPayload{Variant: wire.PointPreModelCall, Model: s.Config.Model.Name, Messages: messages, Tools: tools})
	if err != nil {
		return Reply{}, err
	}
	purpose := t.Purpose
	if purpose == "" {
		purpose = wire.PurposeTurn
	}
	res, err := s.Host.Stream(ctx, wire.ModelStreamParams{
		CallContext: s.CallContext(t.ID), Purpose: purpose, Model: s.Config.Model.Name,
		Messages: nonNil(pre.Payload.Messages), Tools: nonNilSpecs(tools), AssembledContext: nonNilContribs(t.Contributions), Attempt: 1,
	})
	if err != nil {
		return Reply{}, err
	}
	r := Fold(res.Events)
	for _, e := range res.Events {
		if e.Type == wire.EventUsage && e.Usage != nil {
			c, err := s.Charge(t.ID, *e.Usage)
			if err != nil {
				return r, err
			}
			r.CostUSD += c
		}
	}
	post := wire.HookPayload{Variant: wire.PointPostModelResponse, Message: &r.Message, Usage: &r.Usage, CostUSD: &r.CostUSD, StopReason: r.StopReason, Error: r.Error}
	if _, err := s.Dispatch(ctx, t.ID, post); err != nil {
		return r, err
	}
	if r.Error != nil {
		return r, &ModelFailure{Err: *r.Error}
	}
	return r, nil
}

// RunTools is steps 7 to 14 for the calls of a reply, in the order of
// PROTOCOL.md §12: one pre-tool-call dispatch per call, the data_source
// calls, the interactive calls (frontend/interactive), the plan-ready
// chain, the resource calls, one post-tool-call dispatch per call and the
// post-apply chain, each group in the model's order and one call at a
// time. It applies no policy: every resource call is in the plan as
// decision allow, decided_by "no-policy", and runs unless a veto
// subscriber denies the plan (then each gets a denial result). A call to a
// tool the config does not have gets an error result, no invoke and no
// tool hooks (it has no kind for their payload). It
// returns the user message holding one tool_result per call, in the
// model's order.
func (t *Turn) RunTools(ctx context.Context, calls []wire.ContentBlock) (wire.Message, error) {
	s := t.S
	known := func(c wire.ContentBlock) bool { _, ok := s.Tool(c.Name); return ok }
	for _, c := range calls {
		if !known(c) {
			continue // a call of no tool has no tool hooks: there is no kind to name
		}
		if _, err := s.Dispatch(ctx, t.ID, wire.HookPayload{Variant: wire.PointPreToolCall, Call: t.hookCall(c)}); err != nil {
			return wire.Message{}, err
		}
	}
	results := make([]wire.ToolResult, len(calls))
	runKind := func(kind string, run func(c wire.ContentBlock) wire.ToolResult) {
		for i, c := range calls {
			if tool, ok := s.Tool(c.Name); ok && tool.Kind == kind {
				results[i] = run(c)
			}
		}
	}
	runKind(wire.KindDataSource, func(c wire.ContentBlock) wire.ToolResult { return t.Invoke(ctx, c) })
	runKind(wire.KindInteractive, func(c wire.ContentBlock) wire.ToolResult { return t.Interactive(ctx, c) })
	plan := wire.Plan{Items: []wire.PlanItem{}}
	for _, c := range calls {
		if tool, ok := s.Tool(c.Name); ok && tool.Kind == wire.KindResource {
			plan.Items = append(plan.Items, wire.PlanItem{
				ID: fmt.Sprintf("%s/p%d", t.ID, len(plan.Items)+1), ToolCallID: c.ID, Provider: tool.Provider, Tool: tool.Name,
				Kind: tool.Kind, Risk: tool.Risk, Description: tool.Description, Input: c.Input, Decision: wire.PolicyAllow, DecidedBy: "no-policy",
			})
		}
	}
	verdict, err := s.Dispatch(ctx, t.ID, wire.HookPayload{Variant: wire.PointPlanReady, Plan: &plan})
	if err != nil {
		return wire.Message{}, err
	}
	runKind(wire.KindResource, func(c wire.ContentBlock) wire.ToolResult {
		if verdict.Denied {
			return wire.ToolResult{Content: "denied by " + verdict.By + ": " + verdict.Reason, IsError: true, ErrorCategory: wire.ToolErrPermissionDenied}
		}
		return t.Invoke(ctx, c)
	})
	msg := wire.Message{Role: "user", Content: []wire.ContentBlock{}}
	for i, c := range calls {
		r := results[i]
		if !known(c) {
			r = wire.ToolResult{Content: "unknown tool " + c.Name, IsError: true, ErrorCategory: wire.ToolErrNotFound}
		} else if _, err := s.Dispatch(ctx, t.ID, wire.HookPayload{Variant: wire.PointPostToolCall, Call: t.hookCall(c), Result: &r}); err != nil {
			return wire.Message{}, err
		}
		msg.Content = append(msg.Content, ResultBlock(c.ID, r))
	}
	if _, err := s.Dispatch(ctx, t.ID, wire.HookPayload{Variant: wire.PointPostApply, Plan: &plan}); err != nil {
		return wire.Message{}, err
	}
	return msg, ctx.Err()
}

// Invoke runs one call with tool/invoke (attempt 1, no retry) and returns
// its result as ToolResultOf makes it, except that an output the tool's
// output_schema refuses is an unknown-category error result, never a
// success (ER-12).
func (t *Turn) Invoke(ctx context.Context, c wire.ContentBlock) wire.ToolResult {
	tool, _ := t.S.Tool(c.Name)
	res, err := t.S.Host.Invoke(ctx, wire.ToolInvokeParams{
		CallContext: t.S.CallContext(t.ID), CallID: c.ID, Provider: tool.Provider, Tool: c.Name, Input: c.Input, Attempt: 1,
	})
	if err == nil && !res.IsError {
		if bad := t.S.CheckOutput(c.Name, res.Output); bad != nil {
			return wire.ToolResult{Content: bad.Error(), IsError: true, ErrorCategory: wire.ToolErrUnknown}
		}
	}
	return ToolResultOf(res, err)
}

// Interactive runs one interactive call through frontend/interactive: the
// user's response is the result; a failed request an error result.
func (t *Turn) Interactive(ctx context.Context, c wire.ContentBlock) wire.ToolResult {
	res, err := t.S.Host.Interactive(ctx, wire.InteractiveParams{
		CallContext: t.S.CallContext(t.ID), CallID: c.ID, ToolName: c.Name, Prompt: "The agent asks: " + c.Name + " " + string(c.Input), Input: c.Input,
	})
	if err != nil {
		return wire.ToolResult{Content: "the frontend failed: " + err.Error(), IsError: true, ErrorCategory: wire.ToolErrExecutionFailed}
	}
	return wire.ToolResult{Content: res.Response}
}

func (t *Turn) hookCall(c wire.ContentBlock) *wire.ToolCall {
	tool, _ := t.S.Tool(c.Name)
	return &wire.ToolCall{ID: c.ID, Name: c.Name, Provider: tool.Provider, Kind: tool.Kind, Input: c.Input}
}

// ToolResultOf is a call's result from its tool/invoke outcome (PROTOCOL.md
// §7.4): the output as text (OutputText) with is_error and error_category
// carried over; a crashed provider (CodeProcessCrashed) a process_crashed
// error result the kernel builds itself (ER-09); a cancelled call a
// cancelled one; any other failed request an execution_failed one.
func ToolResultOf(res wire.ToolInvokeResult, err error) wire.ToolResult {
	if err == nil {
		return wire.ToolResult{Content: OutputText(res.Output), IsError: res.IsError, ErrorCategory: res.ErrorCategory}
	}
	category := wire.ToolErrExecutionFailed
	if c, _ := Code(err); c == wire.CodeProcessCrashed {
		category = wire.ToolErrProcessCrashed
	} else if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		category = wire.ToolErrCancelled
	}
	return wire.ToolResult{Content: category + ": " + err.Error(), IsError: true, ErrorCategory: category}
}

// OutputText is a tool output as tool_result content: a JSON string as the
// string itself, anything else as its JSON text, nothing as "".
func OutputText(out json.RawMessage) string {
	var s string
	if json.Unmarshal(out, &s) == nil {
		return s
	}
	if len(out) == 0 || string(out) == "null" {
		return ""
	}
	return string(out)
}

// ResultBlock is the tool_result block of the call callID.
func ResultBlock(callID string, r wire.ToolResult) wire.ContentBlock {
	return wire.ContentBlock{Type: wire.BlockToolResult, ToolUseID: callID, Content: r.Content, IsError: r.IsError, ErrorCategory: r.ErrorCategory}
}

func addUsage(into *wire.Usage, u wire.Usage) {
	into.InputTokens += u.InputTokens
	into.OutputTokens += u.OutputTokens
	add := func(to **int64, v *int64) {
		if v != nil {
			if *to == nil {
				*to = new(int64)
			}
			**to += *v
		}
	}
	add(&into.CacheReadTokens, u.CacheReadTokens)
	add(&into.CacheWriteTokens, u.CacheWriteTokens)
	add(&into.ReasoningTokens, u.ReasoningTokens)
}

func nonNil(m []wire.Message) []wire.Message {
	if m == nil {
		return []wire.Message{}
	}
	return m
}

func nonNilSpecs(t []wire.ToolSpec) []wire.ToolSpec {
	if t == nil {
		return []wire.ToolSpec{}
	}
	return t
}

func nonNilContribs(c []wire.Contribution) []wire.Contribution {
	if c == nil {
		return []wire.Contribution{}
	}
	return c
}
