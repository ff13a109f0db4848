package model

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	contentv1 "github.com/agentconform/conform/api/gen/pluggableharness/content/v1"
	modelv1 "github.com/agentconform/conform/api/gen/pluggableharness/model/v1"
)

// checkToolChoice obeys each declared tool-choice mode (MP-27).
func (r *run) checkToolChoice(ctx context.Context, m *modelv1.ModelSpec) {
	s := r.rec.Scenario("model/"+m.GetId()+"/tool-choice", fmt.Sprintf("model %q: tool-choice modes", m.GetId()), "MP-27")
	defer r.rec.Add(s)
	modes := m.GetSupportedToolChoiceModes()
	if len(modes) == 0 || !m.GetSupportsToolUse() {
		s.Skipf("model %s declares no tool-choice mode (an optional capability)", m.GetId())
		return
	}
	if reason := r.restart(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	for _, mode := range modes {
		tc := &modelv1.ToolChoice{Mode: mode}
		text := "Say hello."
		switch mode {
		case modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_SPECIFIC:
			tc.ToolName = proto.String("search")
		case modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_NONE:
			text = "Look up alpha and search for bravo: call every tool."
		}
		req := request(m, userText(text))
		req.Tools, req.Params = tools(), &modelv1.GenerationParams{ToolChoice: tc}
		step := "tool choice " + strings.ToLower(strings.TrimPrefix(mode.String(), "TOOL_CHOICE_MODE_"))
		o, ok := r.ask(ctx, s, m, step, req, 0)
		if !ok {
			return
		}
		calls := o.toolCalls()
		msg := failure(o)
		if msg == "" {
			switch mode {
			case modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_ANY:
				if len(calls) == 0 {
					msg = "no tool was called"
				}
			case modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_NONE:
				if len(calls) > 0 {
					msg = fmt.Sprintf("%d tool %s called (first %q)", len(calls), plural(len(calls), "was", "were"), calls[0].GetName())
				}
			case modelv1.ToolChoiceMode_TOOL_CHOICE_MODE_SPECIFIC:
				if len(calls) == 0 {
					msg = "no tool was called"
				}
				for _, c := range calls {
					if c.GetName() != "search" {
						msg = fmt.Sprintf("tool %q was called, not the named %q", c.GetName(), "search")
					}
				}
			}
		}
		s.Check(step+" is obeyed", msg, "MP-27")
	}
}

// checkThinking sends every declared effort level, budgets at and past
// the declared range (MP-24), and the thinking the model produced back to
// it (MP-25).
func (r *run) checkThinking(ctx context.Context, m *modelv1.ModelSpec) {
	s := r.rec.Scenario("model/"+m.GetId()+"/thinking", fmt.Sprintf("model %q: thinking", m.GetId()), "MP-24", "MP-25")
	defer r.rec.Add(s)
	th := m.GetThinking()
	if !th.GetSupported() {
		s.Skipf("model %s does not support thinking (an optional capability)", m.GetId())
		return
	}
	if reason := r.restart(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	type try struct {
		label  string
		params *modelv1.GenerationParams
		inside bool
	}
	var tries []try
	switch th.GetMode() {
	case modelv1.ThinkingMode_THINKING_MODE_DISCRETE_EFFORT:
		for _, l := range th.GetEffortLevels() {
			tries = append(tries, try{"effort " + strconv.Quote(l), &modelv1.GenerationParams{ThinkingEffort: proto.String(l)}, true})
		}
	case modelv1.ThinkingMode_THINKING_MODE_CONTINUOUS_BUDGET:
		lo, hi := th.GetBudgetRange().GetMin(), th.GetBudgetRange().GetMax()
		tries = append(tries, try{fmt.Sprintf("budget %d (the minimum)", lo), &modelv1.GenerationParams{ThinkingBudgetTokens: proto.Int64(lo)}, true},
			try{fmt.Sprintf("budget %d (the maximum)", hi), &modelv1.GenerationParams{ThinkingBudgetTokens: proto.Int64(hi)}, true},
			try{fmt.Sprintf("budget %d (past the maximum)", hi+1), &modelv1.GenerationParams{ThinkingBudgetTokens: proto.Int64(hi + 1)}, false})
		if lo > 0 {
			tries = append(tries, try{fmt.Sprintf("budget %d (under the minimum)", lo-1), &modelv1.GenerationParams{ThinkingBudgetTokens: proto.Int64(lo - 1)}, false})
		}
	default:
		tries = append(tries, try{"the model's default thinking", nil, true})
	}
	var thought *outcome
	for _, t := range tries {
		req := request(m, userText("Think about the word alpha, then say it."))
		req.Params = t.params
		if !t.inside {
			// A budget past the range is the kernel's to refuse; the plugin
			// may answer or refuse it, but not crash or hang on it.
			o := r.complete(ctx, req, 0)
			if why := r.broken(o); why != "" {
				s.Fail("thinking "+t.label+" gets an answer or a classified error", why, "MP-24")
				if reason := r.restart(ctx); reason != "" {
					s.Errorf("%s", reason)
					return
				}
				continue
			}
			v := map[string]string{}
			judgeStream(m, req, o, v)
			record(s, "thinking "+t.label, v)
			msg := ""
			if o.stop() == nil && o.modelErr() == nil {
				msg = "it ended with neither an answer nor a classified error"
			}
			s.Check("thinking "+t.label+" gets an answer or a classified error", msg, "MP-24")
			continue
		}
		o, ok := r.ask(ctx, s, m, "thinking "+t.label, req, 0)
		if !ok {
			return
		}
		s.Check("thinking "+t.label+" (declared) is answered", failure(o), "MP-24")
		if thought == nil && failure(o) == "" && thinkingOf(o) != nil {
			thought = &o
		}
	}
	if thought == nil {
		s.NotReached("the thinking the model produced is accepted back", "the model sent no thinking to send back", "MP-25")
		return
	}
	assistant := &contentv1.Message{Role: contentv1.Role_ROLE_ASSISTANT, Content: []*contentv1.ContentBlock{
		{Block: &contentv1.ContentBlock_Thinking{Thinking: thinkingOf(*thought)}}, textBlock(thought.text())}}
	req := request(m, userText("Think about the word alpha, then say it."), assistant, userText("Now say bravo."))
	o, ok := r.ask(ctx, s, m, "a conversation carrying the model's own thinking and signature", req, 0)
	if ok {
		s.Check("the thinking the model produced is accepted back", failure(o), "MP-25")
	}
}

// thinkingOf is the thinking block a stream carried, nil when none.
func thinkingOf(o outcome) *contentv1.ThinkingBlock {
	var b strings.Builder
	var sig []byte
	for _, ev := range o.events {
		b.WriteString(ev.GetThinkingDelta().GetText())
		if s := ev.GetThinkingSignature(); s != nil {
			sig = s.GetSignature()
		}
	}
	if b.Len() == 0 {
		return nil
	}
	return &contentv1.ThinkingBlock{Text: b.String(), Signature: sig}
}

// checkCaching sends cache breakpoints of every position kind: honoured or
// ignored by mode, never an error (MP-26).
func (r *run) checkCaching(ctx context.Context, m *modelv1.ModelSpec) {
	s := r.rec.Scenario("model/"+m.GetId()+"/caching", fmt.Sprintf("model %q: cache breakpoints", m.GetId()), "MP-26")
	defer r.rec.Add(s)
	if reason := r.restart(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	assistant := assistantText("alpha")
	req := request(m, userText("Say alpha."), assistant, userText("Now say bravo."))
	req.AssembledContext = []*contentv1.ContextSection{section("The project is called " + strings.Repeat("alpha ", 20) + ".")}
	req.CacheBreakpoints = []*modelv1.CacheBreakpoint{
		{Position: &modelv1.CacheBreakpoint_AfterAssembledContext_{AfterAssembledContext: &modelv1.CacheBreakpoint_AfterAssembledContext{}}},
		{Position: &modelv1.CacheBreakpoint_AfterMessageIndex{AfterMessageIndex: 1}},
	}
	if m.GetSupportsToolUse() {
		req.Tools = tools()
		req.CacheBreakpoints = append(req.CacheBreakpoints, &modelv1.CacheBreakpoint{Position: &modelv1.CacheBreakpoint_AfterTools_{AfterTools: &modelv1.CacheBreakpoint_AfterTools{}}})
	}
	mode := strings.ToLower(strings.TrimPrefix(m.GetCaching().GetMode().String(), "CACHING_MODE_"))
	o, ok := r.ask(ctx, s, m, "cache breakpoints (mode "+mode+")", req, 0)
	if !ok {
		return
	}
	what := "ignored"
	if m.GetCaching().GetMode() == modelv1.CachingMode_CACHING_MODE_EXPLICIT_MARKERS {
		what = "honoured"
	}
	s.Check(fmt.Sprintf("cache breakpoints after the assembled context, a message%s are %s without error (mode %s)",
		map[bool]string{true: " and the tools", false: ""}[m.GetSupportsToolUse()], what, mode), failure(o), "MP-26")
	s.Unverifiable("explicit markers reach the vendor", "the vendor-native cache-control markers are not on the plugin's wire", "MP-26")
}

// checkCancel cancels a long completion after its first event: the plugin
// must keep running and answer the next one (MP-33). The prompt is long
// enough that the answer cannot fit the transport's window, so the cancel
// lands mid-stream.
func (r *run) checkCancel(ctx context.Context, m *modelv1.ModelSpec) {
	s := r.rec.Scenario("model/"+m.GetId()+"/cancel", fmt.Sprintf("model %q: cancel mid-stream", m.GetId()), "MP-33")
	defer r.rec.Add(s)
	if reason := r.restart(ctx); reason != "" {
		s.Errorf("%s", reason)
		return
	}
	n := int64(6000)
	if w := m.GetContextWindow() / 2; w < n {
		n = w
	}
	var b strings.Builder
	for i := int64(0); i < n; i++ {
		b.WriteString(vocabulary[i%int64(len(vocabulary))])
		b.WriteByte(' ')
	}
	req := request(m, userText("Repeat this text word for word: "+b.String()))
	o := r.complete(ctx, req, 1)
	if why := r.broken(o); why != "" {
		s.Errorf("the long completion: %s", why)
		_ = r.restart(ctx)
		return
	}
	if !o.cancelled {
		s.NotReached("the plugin keeps serving after a cancel mid-stream", "the stream ended before a cancel could land ("+fmt.Sprint(len(o.events))+" events)", "MP-33")
		return
	}
	// The plugin sees the cancel when its next send fails, a moment after
	// conform's; a plugin that falls over on it is gone within this
	// window (its own teardown, with a 20x margin), so the exit is blamed
	// here and not on whatever check comes next.
	for end := time.Now().Add(r.cancelGrace()); time.Now().Before(end) && !r.plugin.Exited(); {
		time.Sleep(10 * time.Millisecond)
	}
	after := request(m, userText("Say alpha."))
	next := r.complete(ctx, after, 0)
	if why := r.broken(next); why != "" {
		s.Fail("the plugin keeps serving after a cancel mid-stream", "the completion after the cancel: "+why, "MP-33")
		if reason := r.restart(ctx); reason != "" {
			s.Errorf("%s", reason)
		}
		return
	}
	v := map[string]string{}
	judgeStream(m, after, next, v)
	record(s, "the completion after the cancel", v)
	s.Check("the plugin keeps serving after a cancel mid-stream", failure(next), "MP-33")
	s.Unverifiable("the cancelled stream's stop (reason cancelled)", "gRPC discards what a server sends on a cancelled stream", "MP-33")
}

// cancelGrace is how long a plugin must stay up after a cancel.
func (r *run) cancelGrace() time.Duration {
	return time.Duration(float64(time.Second) * r.opt.Multiplier)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
