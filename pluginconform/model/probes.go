package model

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"pgregory.net/rapid"

	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	modelv1 "github.com/agentconform/conform/api/gen/pluggableharness/model/v1"
	"github.com/agentconform/conform/pluginconform/kit"
)

// checkUnknownModel asks for a model the plugin does not serve: whatever
// it answers must be a classified failure (MP-14, MP-15).
func (r *run) checkUnknownModel(ctx context.Context) {
	s := r.rec.Scenario("model/unknown", "a model the plugin does not serve", "MP-11", "MP-14", "MP-15", "MP-16")
	defer r.rec.Add(s)
	m := &modelv1.ModelSpec{Id: "conform-no-such-model", Thinking: &modelv1.ThinkingSpec{}, Caching: &modelv1.CachingSpec{}}
	o, ok := r.ask(ctx, s, m, "StreamCompletion for model \"conform-no-such-model\"", request(m, userText("hello")), 0)
	if ok && o.modelErr() == nil {
		s.Observe("unknown model", "the plugin answered a completion for a model it does not declare: "+kit.Clip(o.text(), 120))
	}
}

// checkModel runs every probe on one served model.
func (r *run) checkModel(ctx context.Context, m *modelv1.ModelSpec) {
	r.textProperty(ctx, m)
	r.checkContent(ctx, m)
	if m.GetSupportsToolUse() {
		r.checkTools(ctx, m)
	}
	r.checkToolChoice(ctx, m)
	r.checkThinking(ctx, m)
	r.checkCaching(ctx, m)
	r.checkCancel(ctx, m)
}

// vocabulary is what generated prompts are made of.
var vocabulary = strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu")

// textProperty sends generated text requests (words, stop sequences,
// output limits, assembled context) and judges every stream rule on each;
// a failure is shrunk to a minimal request.
func (r *run) textProperty(ctx context.Context, m *modelv1.ModelSpec) {
	name := fmt.Sprintf("model %q: generated text requests", m.GetId())
	ids := []string{"MP-10", "MP-11", "MP-12", "MP-13", "MP-14", "MP-15", "MP-16", "MP-23", "MP-31", "MP-32"}
	s := r.rec.Scenario("model/"+m.GetId()+"/text", name, ids...)
	defer r.rec.Add(s)
	if reason := r.restart(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	res := kit.Property(r.opt.Cases, func(t *rapid.T) (kit.Verdicts, any, string, string) {
		words := rapid.SliceOfN(rapid.SampledFrom(vocabulary), 1, 12).Draw(t, "words")
		text := strings.Join(words, " ")
		req := request(m, userText(text))
		shown := map[string]any{"text": text}
		params := &modelv1.GenerationParams{}
		if rapid.Bool().Draw(t, "stop") {
			// Several, so that which one cuts first is judged too: a
			// provider that only looks for the first, or lets a later
			// match win over one at the very start, leaves a stop
			// sequence in the text.
			params.StopSequences = rapid.SliceOfNDistinct(rapid.SampledFrom(append(slices.Clip(words), "zulu")), 1, 3, rapid.ID[string]).Draw(t, "stop_sequences")
			shown["stop_sequences"] = params.StopSequences
		}
		if rapid.IntRange(0, 3).Draw(t, "limit?") == 0 {
			params.MaxOutputTokens = proto.Int64(int64(rapid.IntRange(1, 8).Draw(t, "max_output_tokens")))
			shown["max_output_tokens"] = params.GetMaxOutputTokens()
		}
		if rapid.Bool().Draw(t, "context") {
			req.AssembledContext = []*contentv1.ContextSection{section("The notes are about the " + words[0] + " project.")}
			shown["assembled_context"] = true
		}
		req.Params = params
		o := r.complete(ctx, req, 0)
		if why := r.broken(o); why != "" {
			return nil, shown, "", why
		}
		v := kit.Verdicts{}
		judgeStream(m, req, o, v)
		plain := len(params.GetStopSequences()) == 0 && params.MaxOutputTokens == nil
		if plain {
			msg := ""
			switch {
			case o.modelErr() != nil || o.endErr != nil:
				msg = "a plain text request failed: " + failure(o)
			case o.text() == "" && len(o.toolCalls()) == 0:
				msg = "a plain text request was answered with no text"
			case o.stop() == nil:
				msg = "a plain text request was answered with no stop"
			}
			v.SetOnce("MP-10", msg)
		}
		r.judgeReasoning(ctx, m, o, v)
		return v, shown, "", ""
	})
	r.stats.GeneratedCalls += res.Calls
	r.stats.GeneratedTime += res.Time
	if res.Stopped != "" {
		s.Errorf("%s", res.Stopped)
		if reason := r.restart(ctx); reason != "" {
			s.Errorf("%s", reason)
		}
	}
	res.Record(r.rec, s, fmt.Sprintf("%d generated requests to %s", res.Calls, m.GetId()), ids, map[string]string{
		"MP-13": "no generated request carried a stop sequence",
		"MP-32": "no answer of text alone reported 32 or more reasoning tokens with CountTokens answering",
	}, "MP-12", "MP-14", "MP-15", "MP-16", "MP-23", "MP-31", "MP-32")
}

// judgeReasoning checks that reasoning tokens are not also in
// output_tokens (MP-32), where the margin tells: an answer of text alone,
// 32 or more reasoning tokens, and CountTokens counting its text.
func (r *run) judgeReasoning(ctx context.Context, m *modelv1.ModelSpec, o outcome, v kit.Verdicts) {
	u := o.usage()
	if u == nil || u.GetReasoningTokens() < 32 || len(o.toolCalls()) > 0 || o.stop().GetReason() != modelv1.StopReason_STOP_REASON_END_TURN {
		return
	}
	c, cancel := r.call(ctx)
	defer cancel()
	resp, err := r.client.CountTokens(c, &modelv1.CountTokensRequest{Text: o.text(), ModelId: m.GetId()})
	if err != nil {
		return
	}
	if u.GetOutputTokens() >= resp.GetCount()+u.GetReasoningTokens() {
		v.SetOnce("MP-32", fmt.Sprintf("output_tokens %d for %d tokens of text (CountTokens) with reasoning_tokens %d: the reasoning is counted in output_tokens too",
			u.GetOutputTokens(), resp.GetCount(), u.GetReasoningTokens()))
	} else {
		v.SetOnce("MP-32", "")
	}
}

// checkContent sends an image and a document: supported where declared,
// refused with invalid_request where not (MP-21, MP-22).
func (r *run) checkContent(ctx context.Context, m *modelv1.ModelSpec) {
	s := r.rec.Scenario("model/"+m.GetId()+"/content", fmt.Sprintf("model %q: images and documents", m.GetId()), "MP-21", "MP-22")
	defer r.rec.Add(s)
	if reason := r.restart(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	for _, c := range []struct {
		id, kind  string
		supported bool
		block     *contentv1.ContentBlock
	}{
		{"MP-21", "an image", m.GetSupportsVision(), &contentv1.ContentBlock{Block: &contentv1.ContentBlock_Image{Image: &contentv1.ImageBlock{Data: png, MediaType: "image/png"}}}},
		{"MP-22", "a document", m.GetSupportsDocuments(), &contentv1.ContentBlock{Block: &contentv1.ContentBlock_Document{Document: &contentv1.DocumentBlock{Data: pdf, MediaType: "application/pdf", Filename: proto.String("note.pdf")}}}},
	} {
		// The block opens the conversation, then sits in a later message
		// after a text exchange: a provider that looks at the first
		// message only would pass the one and drop the block in the other.
		for _, at := range contentPlacements(c.block) {
			step := fmt.Sprintf("%s %s, sent to %s", c.kind, at.where, m.GetId())
			if !r.judgeContent(ctx, s, m, step, c.id, c.supported, request(m, at.msgs...)) {
				return
			}
		}
	}
}

type placement struct {
	where string
	msgs  []*contentv1.Message
}

// contentPlacements are the conversations a content block is sent in.
func contentPlacements(block *contentv1.ContentBlock) []placement {
	first := userText("What does this show?")
	first.Content = append(first.Content, block)
	later := userText("And what does this one show?")
	later.Content = append(later.Content, block)
	return []placement{
		{"in the first message", []*contentv1.Message{first}},
		{"in the third message, after a text exchange", []*contentv1.Message{
			userText("Here are two attachments."), assistantText("Send them."), later}},
	}
}

// judgeContent sends req and judges the answer to the block it carries:
// answered where supported, refused with invalid_request where not. It is
// false when the plugin could not be asked.
func (r *run) judgeContent(ctx context.Context, s *kit.Scenario, m *modelv1.ModelSpec, step, id string, supported bool, req *modelv1.StreamCompletionRequest) bool {
	o, ok := r.ask(ctx, s, m, step, req, 0)
	if !ok {
		return false
	}
	me := o.modelErr()
	switch {
	case supported:
		s.Check(step+" (declared supported) is answered", failure(o), id)
	case me == nil && o.stop() != nil:
		s.Fail(step+" (declared unsupported) is refused with invalid_request", "it was answered with a stop: the block was silently dropped", id)
	case me == nil:
		s.Fail(step+" (declared unsupported) is refused with invalid_request", failure(o)+", with no ModelError", id)
	default:
		msg := ""
		if me.GetCategory() != modelv1.ModelErrorCategory_MODEL_ERROR_CATEGORY_INVALID_REQUEST {
			msg = "it was refused with " + me.GetCategory().String() + ", not invalid_request"
		}
		s.Check(step+" (declared unsupported) is refused with invalid_request", msg, id)
	}
	return true
}

// checkTools asks for a tool call and sends a tool_use/tool_result round
// trip (MP-19, MP-20), and asks for every tool at once (MP-28).
func (r *run) checkTools(ctx context.Context, m *modelv1.ModelSpec) {
	s := r.rec.Scenario("model/"+m.GetId()+"/tools", fmt.Sprintf("model %q: tool calls", m.GetId()), "MP-19", "MP-20", "MP-28")
	defer r.rec.Add(s)
	if reason := r.restart(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	req := request(m, userText("Look up the key alpha: call the tool lookup."))
	req.Tools = tools()
	modes := m.GetSupportedToolChoiceModes()
	switch {
	case containsMode(modes, modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_SPECIFIC):
		req.Params = &modelv1.GenerationParams{ToolChoice: &modelv1.ToolChoice{Mode: modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_SPECIFIC, ToolName: proto.String("lookup")}}
	case containsMode(modes, modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_ANY):
		req.Params = &modelv1.GenerationParams{ToolChoice: &modelv1.ToolChoice{Mode: modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_ANY}}
	}
	o, ok := r.ask(ctx, s, m, "a request that asks for the tool lookup", req, 0)
	if !ok {
		return
	}
	callID, callName, args := "toolu_conform_1", "lookup", map[string]any{"key": "alpha"}
	if calls := o.toolCalls(); len(calls) == 0 {
		s.NotReached("the tool call is well-formed", "model "+m.GetId()+" answered without calling a tool ("+kit.Clip(o.text(), 80)+")", "MP-19")
	} else {
		msg, parsed := toolCallProblem(req, o)
		s.Check("the tool call is well-formed", msg, "MP-19")
		if msg == "" {
			callID, callName, args = calls[0].GetId(), calls[0].GetName(), parsed[calls[0].GetId()]
		}
	}
	st, _ := structpb.NewStruct(args)
	assistant := &contentv1.Message{Role: contentv1.Role_ROLE_ASSISTANT, Content: []*contentv1.ContentBlock{
		{Block: &contentv1.ContentBlock_ToolUse{ToolUse: &contentv1.ToolUseBlock{Id: callID, Name: callName, Arguments: st}}}}}
	result := &contentv1.Message{Role: contentv1.Role_ROLE_USER, Content: []*contentv1.ContentBlock{
		{Block: &contentv1.ContentBlock_ToolResult{ToolResult: &contentv1.ToolResultBlock{ToolUseId: callID, Content: []*contentv1.ContentBlock{textBlock("alpha: the first letter")}}}}}}
	round := request(m, userText("Look up the key alpha: call the tool lookup."), assistant, result)
	round.Tools = tools()
	o, ok = r.ask(ctx, s, m, "a conversation carrying the tool_use and its tool_result", round, 0)
	if !ok {
		return
	}
	s.Check("the tool_use/tool_result round trip is answered", failure(o), "MP-20")

	every := request(m, userText("Look up alpha and search for bravo: call every tool."))
	every.Tools = tools()
	r.ask(ctx, s, m, "a request that asks for every tool at once", every, 0)
}

// toolCallProblem checks the tool calls of a stream (MP-19) and returns
// each call's parsed arguments.
func toolCallProblem(req *modelv1.StreamCompletionRequest, o outcome) (string, map[string]map[string]any) {
	declared := map[string]bool{}
	for _, t := range req.GetTools() {
		declared[t.GetName()] = true
	}
	frags := map[string]*strings.Builder{}
	done := map[string]bool{}
	var order []string
	for _, ev := range o.events {
		switch {
		case ev.GetToolCallStart() != nil:
			st := ev.GetToolCallStart()
			switch {
			case st.GetId() == "":
				return "a tool_call_start has no id", nil
			case frags[st.GetId()] != nil:
				return fmt.Sprintf("tool call id %q starts twice", st.GetId()), nil
			case !declared[st.GetName()]:
				return fmt.Sprintf("tool call %q names %q, which the request does not declare", st.GetId(), st.GetName()), nil
			}
			frags[st.GetId()] = &strings.Builder{}
			order = append(order, st.GetId())
		case ev.GetToolCallDelta() != nil:
			d := ev.GetToolCallDelta()
			b := frags[d.GetId()]
			if b == nil || done[d.GetId()] {
				return fmt.Sprintf("a tool_call_delta for %q comes outside its call (no start, or after its done)", d.GetId()), nil
			}
			b.WriteString(d.GetArgumentsFragment())
		case ev.GetToolCallDone() != nil:
			id := ev.GetToolCallDone().GetId()
			if frags[id] == nil || done[id] {
				return fmt.Sprintf("a tool_call_done for %q comes with no open call of that id", id), nil
			}
			done[id] = true
		}
	}
	parsed := map[string]map[string]any{}
	for _, id := range order {
		if !done[id] {
			return fmt.Sprintf("tool call %q never ends with tool_call_done", id), nil
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(frags[id].String()), &obj); err != nil || obj == nil {
			return fmt.Sprintf("the argument fragments of tool call %q join to %q, not a JSON object", id, kit.Clip(frags[id].String(), 120)), nil
		}
		parsed[id] = obj
	}
	if len(order) > 0 && o.stop() != nil && o.stop().GetReason() != modelv1.StopReason_STOP_REASON_TOOL_USE {
		return "a stream with tool calls stops with reason " + o.stop().GetReason().String() + ", not tool_use", nil
	}
	return "", parsed
}

func containsMode(list []modelv1.ToolChoiceMode, m modelv1.ToolChoiceMode) bool {
	for _, e := range list {
		if e == m {
			return true
		}
	}
	return false
}
