package model

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	modelv1 "github.com/agentconform/conform/api/gen/pluggableharness/model/v1"
	schemav1 "github.com/agentconform/conform/api/gen/pluggableharness/schema/v1"
)

// StreamCompletion answers one completion: a refusal (a classified error
// event) when the request asks for something the model does not do,
// otherwise thinking (thinking models), the echoed text or the tool calls,
// usage and a stop.
func (p *Provider) StreamCompletion(req *modelv1.StreamCompletionRequest, srv grpc.ServerStreamingServer[modelv1.StreamEvent]) error {
	ctx := srv.Context()
	spec := p.spec(req.GetModelId())
	if spec == nil {
		if p.faults.UnknownCode {
			return status.Errorf(codes.Unknown, "no model %q", req.GetModelId())
		}
		return p.statusErr(modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_INVALID_REQUEST, fmt.Sprintf("no model %q", req.GetModelId()))
	}
	if p.reading.LogFlood {
		p.flood(ctx)
	}
	in := inputTokens(req)
	if p.faults.HangOnLongPrompt && in > 5000 {
		<-ctx.Done()
		return status.FromContextError(ctx.Err()).Err()
	}
	var events []*modelv1.StreamEvent
	if cat, why := p.refuse(spec, req, in); why != "" && p.reading.StatusRefusals {
		return p.statusErr(cat, why)
	} else if why != "" {
		events = []*modelv1.StreamEvent{{Event: &modelv1.StreamEvent_Error_{Error: &modelv1.StreamEvent_Error{Error: p.modelError(cat, why)}}}}
	} else {
		events = p.answer(spec, req, in)
	}
	for _, ev := range events {
		if err := ctx.Err(); err != nil {
			return p.cancelled(ctx)
		}
		if err := srv.Send(ev); err != nil {
			return p.cancelled(ctx)
		}
		if p.reading.Slow {
			time.Sleep(time.Millisecond)
		}
	}
	if u := lastUsage(events); u != nil {
		p.emit(ctx, req.GetCallContext().GetSessionId(), spec.GetId(), u.GetInputTokens(), u.GetOutputTokens())
	}
	return nil
}

// cancelled is what a cancelled completion returns: normal control flow,
// unless the CrashOnCancel fault is set.
func (p *Provider) cancelled(ctx context.Context) error {
	if p.faults.CrashOnCancel {
		fmt.Fprintln(os.Stderr, "refmodel: panic: stream closed")
		os.Exit(3)
	}
	if ctx.Err() != nil {
		return status.FromContextError(ctx.Err()).Err()
	}
	return status.Error(codes.Canceled, "the caller went away")
}

// refuse says why the model cannot serve the request, with the error's
// category; "" when it can.
func (p *Provider) refuse(spec *modelv1.ModelSpec, req *modelv1.StreamCompletionRequest, in int64) (modelv1.ModelErrorCategory, string) {
	invalid := modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_INVALID_REQUEST
	id := spec.GetId()
	for _, m := range req.GetMessages() {
		for _, b := range m.GetContent() {
			switch {
			case b.GetImage() != nil && !spec.GetSupportsVision() && !(p.faults.ImageDropped && id == Batch):
				return invalid, fmt.Sprintf("model %s does not accept image blocks", id)
			case b.GetDocument() != nil && !spec.GetSupportsDocuments() && !(p.faults.DocumentDropped && id == Batch):
				return invalid, fmt.Sprintf("model %s does not accept document blocks", id)
			case (b.GetToolUse() != nil || b.GetToolResult() != nil) && !spec.GetSupportsToolUse():
				return invalid, fmt.Sprintf("model %s does not use tools", id)
			case b.GetToolResult() != nil && p.faults.RejectToolResult:
				return invalid, "tool_result blocks are not accepted"
			case b.GetThinking() != nil && (!spec.GetThinking().GetSupported() || p.faults.RejectThinkingHistory):
				return invalid, fmt.Sprintf("model %s does not accept thinking blocks", id)
			case b.GetThinking() != nil && string(b.GetThinking().GetSignature()) != sign(b.GetThinking().GetText()):
				return invalid, "a thinking block's signature does not match its text"
			}
		}
	}
	th := spec.GetThinking()
	params := req.GetParams()
	if params != nil && params.ThinkingEffort != nil {
		if th.GetMode() != modelv1.ThinkingMode_THINKING_MODE_DISCRETE_EFFORT || !contains(th.GetEffortLevels(), params.GetThinkingEffort()) {
			return invalid, fmt.Sprintf("model %s has no thinking effort %q", id, params.GetThinkingEffort())
		}
	}
	if params != nil && params.ThinkingBudgetTokens != nil {
		b := params.GetThinkingBudgetTokens()
		r := th.GetBudgetRange()
		switch {
		case th.GetMode() != modelv1.ThinkingMode_THINKING_MODE_CONTINUOUS_BUDGET:
			return invalid, fmt.Sprintf("model %s takes no thinking budget", id)
		case b < r.GetMin() || b > r.GetMax():
			return invalid, fmt.Sprintf("thinking budget %d is outside %d..%d", b, r.GetMin(), r.GetMax())
		case b == r.GetMax() && p.faults.RejectMaxBudget:
			return invalid, fmt.Sprintf("thinking budget %d is too large", b)
		}
	}
	if tc := params.GetToolChoice(); tc != nil {
		mode := tc.GetMode()
		switch {
		case !containsMode(spec.GetSupportedToolChoiceModes(), mode):
			return invalid, fmt.Sprintf("model %s does not take tool choice %s", id, mode)
		case mode == modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_SPECIFIC && toolByName(req.GetTools(), tc.GetToolName()) == nil:
			return invalid, fmt.Sprintf("tool choice names %q, which is not among the request's tools", tc.GetToolName())
		}
	}
	if len(req.GetCacheBreakpoints()) > 0 && p.faults.BreakpointsOnImplicit && id == Batch {
		return invalid, "cache breakpoints are not accepted"
	}
	if spec.GetCaching().GetMode() == modelv1.CachingMode_CACHING_MODE_EXPLICIT_MARKERS {
		for _, bp := range req.GetCacheBreakpoints() {
			if bp.GetPosition() == nil {
				return invalid, "a cache breakpoint has no position"
			}
			if _, ok := bp.GetPosition().(*modelv1.CacheBreakpoint_AfterMessageIndex); ok {
				if i := bp.GetAfterMessageIndex(); i < 0 || i >= int64(len(req.GetMessages())) {
					return invalid, fmt.Sprintf("a cache breakpoint is after message %d of %d", i, len(req.GetMessages()))
				}
			}
		}
	}
	if in > spec.GetContextWindow() {
		return modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_CONTEXT_LENGTH_EXCEEDED,
			fmt.Sprintf("%d input tokens exceed model %s's context window of %d", in, id, spec.GetContextWindow())
	}
	return 0, ""
}

// answer is the events of a completion the model can serve.
func (p *Provider) answer(spec *modelv1.ModelSpec, req *modelv1.StreamCompletionRequest, in int64) []*modelv1.StreamEvent {
	var evs []*modelv1.StreamEvent
	var reasoning int64
	if spec.GetThinking().GetSupported() || (p.faults.ThinkingFromFree && spec.GetId() == Free) {
		words := thinkingWords(spec, req.GetParams())
		text := strings.TrimSpace(strings.Repeat("considering ", words))
		evs = append(evs, &modelv1.StreamEvent{Event: &modelv1.StreamEvent_ThinkingDelta_{ThinkingDelta: &modelv1.StreamEvent_ThinkingDelta{Text: text}}})
		if spec.GetThinking().GetSupported() {
			evs = append(evs, &modelv1.StreamEvent{Event: &modelv1.StreamEvent_ThinkingSignature_{ThinkingSignature: &modelv1.StreamEvent_ThinkingSignature{Signature: []byte(sign(text))}}})
		}
		if spec.GetThinking().GetSupported() {
			reasoning = int64(words)
		}
	}
	calls := p.toolCalls(spec, req)
	var out int64
	reason := modelv1.StopReason_STOP_REASON_END_TURN
	var matched *string
	if len(calls) > 0 {
		for i, t := range calls {
			id := fmt.Sprintf("call_%d", i+1)
			args := argsFor(t.GetInputSchema())
			evs = append(evs, &modelv1.StreamEvent{Event: &modelv1.StreamEvent_ToolCallStart_{ToolCallStart: &modelv1.StreamEvent_ToolCallStart{Id: id, Name: t.GetName()}}})
			half := len(args) / 2
			frags := []string{args[:half], args[half:]}
			if p.faults.BadToolArguments {
				frags = []string{`{"`, t.GetName()}
			}
			for _, f := range frags {
				evs = append(evs, &modelv1.StreamEvent{Event: &modelv1.StreamEvent_ToolCallDelta_{ToolCallDelta: &modelv1.StreamEvent_ToolCallDelta{Id: id, ArgumentsFragment: f}}})
			}
			evs = append(evs, &modelv1.StreamEvent{Event: &modelv1.StreamEvent_ToolCallDone_{ToolCallDone: &modelv1.StreamEvent_ToolCallDone{Id: id}}})
			out += int64(len(strings.Fields(args))) + 1
		}
		reason = modelv1.StopReason_STOP_REASON_TOOL_USE
	} else if !(p.faults.NoText && spec.GetId() == Echo) {
		text := replyText(req)
		if !p.faults.IgnoreStopSequences {
			if cut, seq, ok := cutAtStop(text, req.GetParams().GetStopSequences()); ok {
				text, reason, matched = cut, modelv1.StopReason_STOP_REASON_STOP_SEQUENCE, proto.String(seq)
			}
		}
		words := strings.Fields(text)
		limit := spec.GetMaxOutputTokens()
		if m := req.GetParams().GetMaxOutputTokens(); m > 0 && m < limit {
			limit = m
		}
		if int64(len(words)) > limit {
			words, reason, matched = words[:limit], modelv1.StopReason_STOP_REASON_MAX_TOKENS, nil
			text = strings.Join(words, " ")
		}
		for i, w := range strings.SplitAfter(text, " ") {
			if w == "" && i > 0 {
				continue
			}
			evs = append(evs, &modelv1.StreamEvent{Event: &modelv1.StreamEvent_TextDelta_{TextDelta: &modelv1.StreamEvent_TextDelta{Text: w}}})
		}
		out = int64(len(words))
	}
	u := &modelv1.Usage{InputTokens: in, OutputTokens: out}
	if reasoning > 0 {
		u.ReasoningTokens = proto.Int64(reasoning)
		if p.faults.ReasoningInOutput {
			u.OutputTokens += reasoning
		}
	}
	switch {
	case spec.GetCaching().GetMode() == modelv1.CachingMode_CACHING_MODE_EXPLICIT_MARKERS && len(req.GetCacheBreakpoints()) > 0:
		u.CacheWriteTokens, u.CacheReadTokens = proto.Int64(in/2), proto.Int64(0)
	case spec.GetCaching().GetSupported():
		u.CacheReadTokens = proto.Int64(0)
	case p.faults.CacheUsageFromNoCache:
		u.CacheReadTokens = proto.Int64(5)
	}
	if p.faults.NegativeUsage {
		u.OutputTokens = -1
	}
	if p.faults.StopUnspecified && spec.GetId() == Batch {
		reason = modelv1.StopReason_STOP_REASON_UNSPECIFIED
	}
	usage := &modelv1.StreamEvent{Event: &modelv1.StreamEvent_Usage{Usage: u}}
	evs = append(evs, usage, &modelv1.StreamEvent{Event: &modelv1.StreamEvent_Stop_{Stop: &modelv1.StreamEvent_Stop{Reason: reason, MatchedStopSequence: matched}}})
	if p.faults.EventAfterStop {
		evs = append(evs, usage)
	}
	return evs
}

// toolCalls are the tools the model calls: what the tool choice demands,
// else what the last user text asks for ("call the tool NAME", "call every
// tool"); none after a tool result, or for tool choice none.
func (p *Provider) toolCalls(spec *modelv1.ModelSpec, req *modelv1.StreamCompletionRequest) []*modelv1.ToolDeclaration {
	tools := req.GetTools()
	if !spec.GetSupportsToolUse() || len(tools) == 0 || lastIsToolResult(req) {
		return nil
	}
	switch req.GetParams().GetToolChoice().GetMode() {
	case modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_NONE:
		if !p.faults.ToolChoiceNoneIgnored {
			return nil
		}
		return tools[:1]
	case modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_SPECIFIC:
		return []*modelv1.ToolDeclaration{toolByName(tools, req.GetParams().GetToolChoice().GetToolName())}
	case modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_ANY:
		return tools[:1]
	}
	text := lastUserText(req)
	if strings.Contains(text, "call every tool") {
		if spec.GetSupportsParallelToolCalls() || (p.faults.ParallelFromFree && spec.GetId() == Free) {
			return tools
		}
		return tools[:1]
	}
	for _, t := range tools {
		if strings.Contains(text, "call the tool "+t.GetName()) {
			return []*modelv1.ToolDeclaration{t}
		}
	}
	return nil
}

// replyText is what the model says: "done" after a tool result, else the
// last user text echoed.
func replyText(req *modelv1.StreamCompletionRequest) string {
	if lastIsToolResult(req) {
		return "done"
	}
	if t := strings.TrimSpace(lastUserText(req)); t != "" {
		return t
	}
	return "ok"
}

func lastUserText(req *modelv1.StreamCompletionRequest) string {
	msgs := req.GetMessages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].GetRole() != contentv1.Role_ROLE_USER {
			continue
		}
		var parts []string
		for _, b := range msgs[i].GetContent() {
			if t := b.GetText(); t != nil {
				parts = append(parts, t.GetText())
			}
		}
		return strings.Join(parts, " ")
	}
	return ""
}

func lastIsToolResult(req *modelv1.StreamCompletionRequest) bool {
	msgs := req.GetMessages()
	if len(msgs) == 0 {
		return false
	}
	for _, b := range msgs[len(msgs)-1].GetContent() {
		if b.GetToolResult() != nil {
			return true
		}
	}
	return false
}

// cutAtStop cuts text before the earliest stop sequence it contains.
func cutAtStop(text string, seqs []string) (string, string, bool) {
	best, seq := -1, ""
	for _, s := range seqs {
		if s == "" {
			continue
		}
		if i := strings.Index(text, s); i >= 0 && (best < 0 || i < best) {
			best, seq = i, s
		}
	}
	if best < 0 {
		return text, "", false
	}
	return strings.TrimRight(text[:best], " "), seq, true
}

// inputTokens counts the words of every text the request carries.
func inputTokens(req *modelv1.StreamCompletionRequest) int64 {
	n := 0
	var blocks func([]*contentv1.ContentBlock)
	blocks = func(bs []*contentv1.ContentBlock) {
		for _, b := range bs {
			n += len(strings.Fields(b.GetText().GetText()))
			blocks(b.GetToolResult().GetContent())
		}
	}
	for _, m := range req.GetMessages() {
		blocks(m.GetContent())
	}
	for _, s := range req.GetAssembledContext() {
		blocks(s.GetContent())
	}
	return int64(n)
}

// thinkingWords is how long the model thinks: by effort level, or by
// budget; always at least 32 words.
func thinkingWords(spec *modelv1.ModelSpec, params *modelv1.GenerationParams) int {
	th := spec.GetThinking()
	switch th.GetMode() {
	case modelv1.ThinkingMode_THINKING_MODE_DISCRETE_EFFORT:
		level := th.GetDefault()
		if params != nil && params.ThinkingEffort != nil {
			level = params.GetThinkingEffort()
		}
		for i, l := range th.GetEffortLevels() {
			if l == level {
				return 40 + 20*i
			}
		}
	case modelv1.ThinkingMode_THINKING_MODE_CONTINUOUS_BUDGET:
		budget := int64(4096)
		if params != nil && params.ThinkingBudgetTokens != nil {
			budget = params.GetThinkingBudgetTokens()
		}
		return 32 + int(budget/1024)
	}
	return 40
}

// argsFor is a JSON object with every required property of schema set.
func argsFor(s *schemav1.Schema) string {
	obj := map[string]any{}
	for _, name := range s.GetRequired() {
		obj[name] = valueFor(s.GetProperties()[name])
	}
	b, _ := json.Marshal(obj)
	return string(b)
}

func valueFor(s *schemav1.Schema) any {
	if len(s.GetEnumValues()) > 0 {
		return s.GetEnumValues()[0]
	}
	switch s.GetType() {
	case schemav1.SchemaType_SCHEMA_TYPE_NUMBER:
		return 1
	case schemav1.SchemaType_SCHEMA_TYPE_BOOLEAN:
		return true
	case schemav1.SchemaType_SCHEMA_TYPE_ARRAY:
		return []any{}
	case schemav1.SchemaType_SCHEMA_TYPE_OBJECT:
		out := map[string]any{}
		for _, name := range s.GetRequired() {
			out[name] = valueFor(s.GetProperties()[name])
		}
		return out
	}
	return "x"
}

func sign(text string) string {
	h := sha256.Sum256([]byte("refmodel:" + text))
	return fmt.Sprintf("sig-%x", h[:12])
}

func lastUsage(evs []*modelv1.StreamEvent) *modelv1.Usage {
	var u *modelv1.Usage
	for _, e := range evs {
		if e.GetUsage() != nil {
			u = e.GetUsage()
		}
	}
	return u
}

func toolByName(tools []*modelv1.ToolDeclaration, name string) *modelv1.ToolDeclaration {
	for _, t := range tools {
		if t.GetName() == name {
			return t
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func containsMode(list []modelv1.ToolChoiceMode, m modelv1.ToolChoiceMode) bool {
	for _, e := range list {
		if e == m {
			return true
		}
	}
	return false
}
