package kernelkit

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

// script is a fake harness for the helpers: two model replies (three calls
// of each kind, then text), hook answers by subscriber, tools that answer
// with an object, a string or a crash.
type script struct {
	mu       sync.Mutex
	log      []string // request labels in arrival order
	requests []wire.ModelStreamParams
	hook     map[string]func(ctx context.Context, p wire.HookDispatchParams) (any, error)
}

func (s *script) answer(ctx context.Context, method string, raw json.RawMessage) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch method {
	case wire.MethodContextAssemble:
		s.log = append(s.log, "context/assemble")
		return wire.ContextAssembleResult{Contributions: []wire.Contribution{{Source: "c", Text: "ctx"}}}, nil
	case wire.MethodModelStream:
		var p wire.ModelStreamParams
		_ = json.Unmarshal(raw, &p)
		s.requests = append(s.requests, p)
		s.log = append(s.log, "model/stream")
		u := &wire.Usage{InputTokens: 1000, OutputTokens: 10}
		if len(s.requests) == 1 {
			return wire.ModelStreamResult{Events: []wire.StreamEvent{
				{Type: wire.EventTextDelta, Text: "Working."},
				{Type: wire.EventToolCall, ID: "c1", Name: "read", Input: json.RawMessage(`{"path":"a"}`)},
				{Type: wire.EventToolCall, ID: "c2", Name: "ask", Input: json.RawMessage(`{"q":"ok?"}`)},
				{Type: wire.EventToolCall, ID: "c3", Name: "write", Input: json.RawMessage(`{"path":"b"}`)},
				{Type: wire.EventToolCall, ID: "c4", Name: "nope"},
				{Type: wire.EventUsage, Usage: u}, {Type: wire.EventStop, StopReason: "tool_use"},
			}}, nil
		}
		return wire.ModelStreamResult{Events: []wire.StreamEvent{{Type: wire.EventTextDelta, Text: "Done."}, {Type: wire.EventUsage, Usage: u}, {Type: wire.EventStop, StopReason: "end_turn"}}}, nil
	case wire.MethodToolInvoke:
		var p wire.ToolInvokeParams
		_ = json.Unmarshal(raw, &p)
		s.log = append(s.log, "invoke "+p.Tool)
		if p.Tool == "write" {
			return nil, &Error{Code: wire.CodeProcessCrashed, Message: "gone"}
		}
		return wire.ToolInvokeResult{Output: json.RawMessage(`{"ok":true}`)}, nil
	case wire.MethodFrontendInteractive:
		s.log = append(s.log, "interactive")
		return wire.InteractiveResult{Response: "yes"}, nil
	case wire.MethodHookDispatch:
		var p wire.HookDispatchParams
		_ = json.Unmarshal(raw, &p)
		s.log = append(s.log, "hook "+p.Point+" "+p.Subscriber)
		if f := s.hook[p.Subscriber]; f != nil {
			s.mu.Unlock()
			res, err := f(ctx, p)
			s.mu.Lock()
			return res, err
		}
		switch p.Mode {
		case wire.ModeTransform:
			return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &p.Payload}, nil
		case wire.ModeVeto:
			return wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionAllow}, nil
		}
		return wire.HookDispatchResult{Outcome: wire.OutcomeAck}, nil
	}
	return nil, &Error{Code: wire.CodeMethodNotFound, Message: method}
}

// snapshot is what the script has recorded so far.
func (s *script) snapshot() ([]string, []wire.ModelStreamParams) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log), slices.Clone(s.requests)
}

// helperKernel runs the example's loop shape with the helpers.
var helperKernel = kernelFunc(func(ctx context.Context, h *Host, p wire.RunParams) (wire.RunSessionResult, error) {
	s := NewSession(h, p)
	if err := s.Start(ctx); err != nil {
		return s.Finish(ctx, wire.StatusFailed, nil, err), nil
	}
	history := []wire.Message{{Role: "user", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: p.Prompt}}}}
	for {
		t, err := s.NewTurn(ctx, history)
		if err != nil {
			return s.Finish(ctx, wire.StatusFailed, nil, err), nil
		}
		r, err := t.Model(ctx, history, s.ToolSpecs())
		if err != nil {
			return s.Finish(ctx, wire.StatusFailed, nil, err), nil
		}
		history = append(history, r.Message)
		if len(r.Calls) == 0 {
			return s.Finish(ctx, wire.StatusCompleted, &r.Message, nil), nil
		}
		results, err := t.RunTools(ctx, r.Calls)
		if err != nil {
			return s.Finish(ctx, wire.StatusFailed, nil, err), nil
		}
		history = append(history, results)
	}
})

func runScript(t *testing.T, sc *script, subs []wire.Subscriber) (wire.RunSessionResult, *fakeHarness) {
	t.Helper()
	h := startKit(t, helperKernel, sc.answer)
	h.init(t)
	cfg := config()
	cfg.Hooks.Subscribers = subs
	var res wire.RunSessionResult
	if err := h.call(t, wire.MethodSessionRun, wire.RunParams{SessionID: "s", Prompt: "go", Config: cfg}, &res); err != nil {
		t.Fatal(err)
	}
	return res, h
}

func TestHelpersFollowTheTurnShape(t *testing.T) {
	sc := &script{}
	var subs []wire.Subscriber
	for _, pt := range wire.HookPoints {
		if pt != wire.PointContextAssemble {
			subs = append(subs, wire.Subscriber{ID: "O", Point: pt, Mode: wire.ModeObserve})
		}
	}
	res, h := runScript(t, sc, subs)
	log, requests := sc.snapshot()
	want := []string{"hook session-start O",
		"context/assemble", "hook pre-model-call O", "model/stream", "hook post-model-response O",
		"hook pre-tool-call O", "hook pre-tool-call O", "hook pre-tool-call O",
		"invoke read", "interactive", "hook plan-ready O", "invoke write",
		"hook post-tool-call O", "hook post-tool-call O", "hook post-tool-call O", "hook post-apply O",
		"context/assemble", "hook pre-model-call O", "model/stream", "hook post-model-response O",
		"hook session-end O"}
	if !slices.Equal(log, want) {
		t.Errorf("requests:\n%s\nwant\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	if res.Status != wire.StatusCompleted || res.Turns != 2 || res.TotalInputTokens != 2000 || res.TotalCostUSD != 0.00204 {
		t.Errorf("result %+v", res)
	}
	second := requests[1]
	results := second.Messages[len(second.Messages)-1]
	var got []string
	for _, b := range results.Content {
		got = append(got, b.ToolUseID+"|"+b.Content+"|"+b.ErrorCategory)
	}
	wantResults := []string{`c1|{"ok":true}|`, "c2|yes|", "c3|process_crashed: jsonrpc error -32003: gone|process_crashed", "c4|unknown tool nope|not_found"}
	if results.Role != "user" || !slices.Equal(got, wantResults) {
		t.Errorf("results message %s: %v, want %v", results.Role, got, wantResults)
	}
	if n := len(h.notesOf(wire.NotifyCostUsage)); n != 2 {
		t.Errorf("%d cost/usage reports, want 2", n)
	}
}

func TestDispatchRules(t *testing.T) {
	rewrite := func(_ context.Context, p wire.HookDispatchParams) (any, error) {
		pl := p.Payload
		pl.Messages = append(pl.Messages, wire.Message{Role: "user", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: "checked"}}})
		return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &pl}, nil
	}
	type hookFunc = func(context.Context, wire.HookDispatchParams) (any, error)
	answer := func(res any, err error) hookFunc {
		return func(context.Context, wire.HookDispatchParams) (any, error) { return res, err }
	}
	gaveUp, once := make(chan struct{}), sync.Once{} // "late" is called in both turns
	sc := &script{hook: map[string]hookFunc{
		"T": rewrite,
		"late": func(ctx context.Context, _ wire.HookDispatchParams) (any, error) {
			<-ctx.Done() // held until the kernel gives up on it ($/cancelRequest)
			once.Do(func() { close(gaveUp) })
			return nil, ctx.Err()
		},
		"wrong": answer(wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionAllow}, nil),
		"V":     answer(wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionDeny, Reason: "no"}, nil),
		"crash": answer(nil, &Error{Code: wire.CodeProcessCrashed, Message: "x"}),
	}}
	subs := []wire.Subscriber{
		{ID: "T", Point: wire.PointPreModelCall, Mode: wire.ModeTransform},
		{ID: "late", Point: wire.PointPostModelResponse, Mode: wire.ModeObserve, TimeoutMS: 50},
		{ID: "wrong", Point: wire.PointPreToolCall, Mode: wire.ModeObserve},
		{ID: "V", Point: wire.PointPlanReady, Mode: wire.ModeVeto},
		{ID: "never", Point: wire.PointPlanReady, Mode: wire.ModeObserve},
		{ID: "crash", Point: wire.PointPostApply, Mode: wire.ModeObserve},
	}
	res, h := runScript(t, sc, subs)
	if res.Status != wire.StatusCompleted {
		t.Fatalf("result %+v", res)
	}
	log, requests := sc.snapshot()
	last := requests[0].Messages[len(requests[0].Messages)-1]
	if last.Content[0].Text != "checked" {
		t.Errorf("the pre-model-call transform did not reach the request: %+v", requests[0].Messages)
	}
	if slices.Contains(log, "hook plan-ready never") || slices.Contains(log, "invoke write") {
		t.Errorf("a denied plan went on: %v", log)
	}
	select {
	case <-gaveUp:
	case <-time.After(10 * time.Second):
		t.Errorf("the late subscriber's call was not cancelled")
	}
	cats := map[string]string{}
	for _, raw := range h.notesOf(wire.NotifyEvent) {
		if ev := decodeAs[wire.Event](t, raw); ev.Kind == wire.EventHookError {
			cats[ev.Producer], _ = ev.Payload["category"].(string)
		}
	}
	want := map[string]string{"late": wire.HookErrTimeout, "wrong": wire.HookErrInvalidResponse, "crash": wire.HookErrProcessCrashed}
	for id, c := range want {
		if cats[id] != c {
			t.Errorf("hook_error of %s: %q, want %q (all: %v)", id, cats[id], c, cats)
		}
	}
	if _, ok := cats["V"]; ok {
		t.Errorf("a plain DENY was reported as a hook error")
	}
}

// A transform that changes what it may not aborts its chain with a
// HookAbort.
func TestTransformAbort(t *testing.T) {
	sc := &script{hook: map[string]func(context.Context, wire.HookDispatchParams) (any, error){
		"T": func(_ context.Context, p wire.HookDispatchParams) (any, error) {
			pl := p.Payload
			pl.Result = &wire.ToolResult{Content: "tampered"}
			return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &pl}, nil
		},
	}}
	res, _ := runScript(t, sc, []wire.Subscriber{{ID: "T", Point: wire.PointPostToolCall, Mode: wire.ModeTransform}})
	if res.Status != wire.StatusFailed || !strings.Contains(res.Error, "INVALID_RESPONSE") {
		t.Errorf("result %+v, want failed with the abort", res)
	}
}

func TestConversions(t *testing.T) {
	for out, want := range map[string]string{`"hi"`: "hi", `{"a":1}`: `{"a":1}`, `3`: "3", `null`: "", ``: ""} {
		if got := OutputText(json.RawMessage(out)); got != want {
			t.Errorf("OutputText(%s) = %q, want %q", out, got, want)
		}
	}
	crash := ToolResultOf(wire.ToolInvokeResult{}, &Error{Code: wire.CodeProcessCrashed, Message: "x"})
	cancelled := ToolResultOf(wire.ToolInvokeResult{}, context.Canceled)
	failed := ToolResultOf(wire.ToolInvokeResult{Output: json.RawMessage(`"no"`), IsError: true, ErrorCategory: wire.ToolErrNotFound}, nil)
	for _, c := range []struct {
		got  wire.ToolResult
		want string
	}{{crash, wire.ToolErrProcessCrashed}, {cancelled, wire.ToolErrCancelled}, {failed, wire.ToolErrNotFound}} {
		if !c.got.IsError || c.got.ErrorCategory != c.want {
			t.Errorf("%+v, want an error result %s", c.got, c.want)
		}
	}
	r := Fold([]wire.StreamEvent{{Type: wire.EventTextDelta, Text: "a"}, {Type: wire.EventTextDelta, Text: "b"},
		{Type: wire.EventToolCall, ID: "c", Name: "t"}, {Type: wire.EventUsage, Usage: &wire.Usage{InputTokens: 1}},
		{Type: wire.EventUsage, Usage: &wire.Usage{InputTokens: 2}}, {Type: wire.EventStop, StopReason: "tool_use"}})
	if r.Message.Content[0].Text != "ab" || string(r.Calls[0].Input) != "{}" || r.Usage.InputTokens != 3 || r.StopReason != "tool_use" {
		t.Errorf("Fold = %+v", r)
	}
	if e := (&HookAbort{Err: errors.New("x")}); !errors.Is(e, e.Err) {
		t.Error("HookAbort does not unwrap")
	}
}
