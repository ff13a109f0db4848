package fakes

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentconform/conform/spec/wire"
)

func hookResult(t *testing.T, b HookBehavior, mode string, p wire.HookPayload) json.RawMessage {
	t.Helper()
	h := newHooks()
	h.Set("X", b)
	res, err := h.dispatch(context.Background(), make(chan struct{}), wire.HookDispatchParams{Subscriber: "X", Mode: mode, Point: p.Variant, Payload: p}, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func samplePayloads() []wire.HookPayload {
	msg := &wire.Message{Role: "assistant", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: "hi"}}}
	call := &wire.ToolCall{ID: "c1", Name: "write", Provider: "fs", Kind: wire.KindResource, Input: json.RawMessage(`{"path":"a"}`)}
	plan := &wire.Plan{Items: []wire.PlanItem{{ID: "p1", ToolCallID: "c1", Provider: "fs", Tool: "write", Kind: wire.KindResource,
		Risk: "moderate", Description: "write", Input: json.RawMessage(`{"path":"a"}`), Decision: wire.PolicyAllow, DecidedBy: "rule:x"}}}
	cost := 0.5
	return []wire.HookPayload{
		{Variant: wire.PointSessionStart, SessionID: "s", Prompt: "p"},
		{Variant: wire.PointPreModelCall, Model: "m", Messages: []wire.Message{*msg}},
		{Variant: wire.PointPostModelResponse, Message: msg, Usage: &wire.Usage{InputTokens: 1}, CostUSD: &cost},
		{Variant: wire.PointPreToolCall, Call: call},
		{Variant: wire.PointPlanReady, Plan: plan},
		{Variant: wire.PointPostToolCall, Call: call, Result: &wire.ToolResult{Content: "ok"}},
		{Variant: wire.PointPostApply, Plan: plan},
		{Variant: wire.PointSessionEnd, SessionID: "s", Status: wire.StatusCompleted, FinalMessage: msg},
	}
}

// A tampered payload differs from the original but stays well formed, so
// a kernel meets an immutability violation, not a schema violation.
func TestTamperChangesOneFieldAndKeepsTheSchema(t *testing.T) {
	for _, p := range samplePayloads() {
		raw := hookResult(t, HookBehavior{Action: HookTamper}, wire.ModeTransform, p)
		if err := wire.Validate(wire.MethodHookDispatch, "result", raw); err != nil {
			t.Errorf("%s: tampered result breaks the schema: %v", p.Variant, err)
		}
		var res wire.HookDispatchResult
		_ = json.Unmarshal(raw, &res)
		if res.Payload == nil || reflect.DeepEqual(clonePayload(p), *res.Payload) || res.Payload.Variant != p.Variant {
			t.Errorf("%s: tampered payload %+v", p.Variant, res.Payload)
		}
	}
}

func TestUnfitAnswers(t *testing.T) {
	p := samplePayloads()[1]
	if err := wire.Validate(wire.MethodHookDispatch, "result", hookResult(t, HookBehavior{Action: HookMalformed}, wire.ModeTransform, p)); err == nil {
		t.Error("a malformed answer passes the result schema")
	}
	for mode, want := range map[string]string{wire.ModeObserve: wire.OutcomeVeto, wire.ModeTransform: wire.OutcomeAck, wire.ModeVeto: wire.OutcomeTransform} {
		var res wire.HookDispatchResult
		_ = json.Unmarshal(hookResult(t, HookBehavior{Action: HookWrongOutcome}, mode, p), &res)
		if res.Outcome != want {
			t.Errorf("%s subscriber's wrong outcome is %q, want %q", mode, res.Outcome, want)
		}
		if mode == wire.ModeTransform && (res.Payload == nil || !reflect.DeepEqual(clonePayload(p), *res.Payload)) {
			t.Errorf("a transform's wrong outcome carries %+v, want the unchanged payload", res.Payload)
		}
	}
	var res wire.HookDispatchResult
	_ = json.Unmarshal(hookResult(t, HookBehavior{Action: HookWrongVariant}, wire.ModeTransform, p), &res)
	if res.Payload == nil || res.Payload.Variant == p.Variant {
		t.Errorf("wrong variant answer %+v", res.Payload)
	}
}

// A hanging subscriber ends at once when the kernel cancels the call.
func TestHangEndsOnCancel(t *testing.T) {
	h := newHooks()
	h.Set("X", HookBehavior{Action: HookHang})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.dispatch(ctx, make(chan struct{}), wire.HookDispatchParams{Subscriber: "X", Mode: wire.ModeObserve}, nil); err == nil {
		t.Fatal("a cancelled hang answered")
	}
}

// A transform that changes nothing echoes the kernel's payload value for
// value: an empty list the Go binding would omit stays in the answer, a
// number keeps its spelling; only the keys come back sorted (a kernel must
// not depend on their order: issue 29).
func TestUnchangedTransformEchoesValues(t *testing.T) {
	h := newHooks()
	raw := json.RawMessage(`{"subscriber":"X","mode":"transform","point":"pre-model-call","payload":{"variant":"pre-model-call","tools":[],"x-kernel":{"k":1.50,"a":12345678901234567890}}}`)
	var p wire.HookDispatchParams
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatal(err)
	}
	res, err := h.dispatch(context.Background(), make(chan struct{}), p, raw)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	if want := `{"outcome":"transform","payload":{"tools":[],"variant":"pre-model-call","x-kernel":{"a":12345678901234567890,"k":1.50}}}`; string(b) != want {
		t.Errorf("answer = %s, want %s", b, want)
	}
}

// The answers that probe how a kernel reads a result: a DENY without a
// reason and a wrong outcome carrying ALLOW stay within the result schema
// (only the outcome is wrong), the null result is a result that fails it.
func TestAnswersThatProbeTheReading(t *testing.T) {
	p := samplePayloads()[4]
	deny := hookResult(t, HookBehavior{Action: HookDenyNoReason}, wire.ModeVeto, p)
	if string(deny) != `{"outcome":"veto","decision":"DENY"}` {
		t.Errorf("a DENY without a reason is %s", deny)
	}
	if err := wire.Validate(wire.MethodHookDispatch, "result", deny); err != nil {
		t.Errorf("a DENY without a reason breaks the schema: %v", err)
	}
	for mode, want := range map[string]string{
		wire.ModeVeto:      `{"outcome":"ack","decision":"ALLOW"}`,
		wire.ModeObserve:   `{"outcome":"veto","decision":"ALLOW"}`,
		wire.ModeTransform: `{"outcome":"veto","decision":"ALLOW"}`,
	} {
		got := hookResult(t, HookBehavior{Action: HookWrongOutcomeAllow}, mode, p)
		if string(got) != want {
			t.Errorf("%s subscriber's wrong outcome with ALLOW is %s, want %s", mode, got, want)
		}
		if err := wire.Validate(wire.MethodHookDispatch, "result", got); err != nil {
			t.Errorf("%s subscriber's wrong outcome with ALLOW breaks the schema: %v", mode, err)
		}
	}
	null := hookResult(t, HookBehavior{Action: HookNullResult}, wire.ModeTransform, p)
	if string(null) != "null" {
		t.Errorf("the null result is %s", null)
	}
	if err := wire.Validate(wire.MethodHookDispatch, "result", null); err == nil {
		t.Error("a null result passes the result schema")
	}
}

// The respelled echo keeps every value and spells the empty lists of a
// pre-model-call payload the other way, and stays within the schema; other
// variants are echoed as they are.
func TestRespelledEchoSpellsEmptyListsTheOtherWay(t *testing.T) {
	cases := []struct{ payload, want string }{
		{`{"variant":"pre-model-call","model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"tools":[]}`,
			`{"messages":[{"content":[{"text":"hi","type":"text"}],"role":"user"}],"model":"m","tools":null,"variant":"pre-model-call"}`},
		{`{"variant":"pre-model-call","model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`,
			`{"messages":[{"content":[{"text":"hi","type":"text"}],"role":"user"}],"model":"m","tools":null,"variant":"pre-model-call"}`},
		{`{"variant":"pre-model-call","model":"m","messages":null,"tools":null}`,
			`{"model":"m","variant":"pre-model-call"}`},
		{`{"variant":"pre-model-call","model":"m","messages":[],"tools":[{"name":"read","description":"Read"}]}`,
			`{"messages":null,"model":"m","tools":[{"description":"Read","name":"read"}],"variant":"pre-model-call"}`},
		{`{"variant":"session-start","session_id":"s","prompt":"p"}`,
			`{"prompt":"p","session_id":"s","variant":"session-start"}`},
	}
	for _, c := range cases {
		raw := json.RawMessage(`{"subscriber":"X","mode":"transform","point":"pre-model-call","payload":` + c.payload + `}`)
		var p wire.HookDispatchParams
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		h := newHooks()
		h.Set("X", HookBehavior{Action: HookRespellEmpty})
		res, err := h.dispatch(context.Background(), make(chan struct{}), p, raw)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		if want := `{"outcome":"transform","payload":` + c.want + `}`; string(b) != want {
			t.Errorf("echo of %s = %s, want %s", c.payload, b, want)
		}
		if err := wire.Validate(wire.MethodHookDispatch, "result", b); err != nil {
			t.Errorf("echo of %s breaks the schema: %v", c.payload, err)
		}
	}
}
