package steps

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

func answersHookError(session, sub, category string) wire.Event {
	return wire.Event{SessionID: session, Kind: wire.EventHookError, Producer: sub,
		Payload: map[string]any{"subscriber": sub, "point": "plan-ready", "mode": "veto", "category": category}}
}

func answersNotify(w *fakes.World, evs ...wire.Event) {
	for _, ev := range evs {
		b, _ := json.Marshal(ev)
		w.Notify(wire.NotifyEvent, b)
	}
}

// A DENY is the veto's answer: a hook_error for it fails HD-14, and the
// check is not reached without a DENY or without a recorded witness.
func TestDenyIsNoFailure(t *testing.T) {
	run := func(answer string, events ...wire.Event) error {
		w := fakes.NewWorld()
		if answer != "" {
			p := wire.HookDispatchParams{Point: wire.PointPlanReady, Subscriber: "V1", Mode: wire.ModeVeto}
			w.Log.Finish(w.Log.Begin(calllog.Request, wire.MethodHookDispatch, "s", "t1", "hook plan-ready V1", nil, p), json.RawMessage(answer), nil)
		}
		answersNotify(w, events...)
		s := &Scenario{World: w, SessionID: "s", ran: true, env: &Env{}}
		return s.noHookErrorForDeny("V1", "W")
	}
	witness := answersHookError("s", "W", "UNKNOWN")
	deny := `{"outcome":"veto","decision":"DENY"}`
	var nr *notReachedError
	for name, err := range map[string]error{
		"never dispatched":    run("", witness),
		"answered ALLOW":      run(`{"outcome":"veto","decision":"ALLOW"}`, witness),
		"no witness recorded": run(deny),
	} {
		if !errors.As(err, &nr) {
			t.Errorf("%s: want not reached, got %v", name, err)
		}
	}
	if err := run(deny, witness); err != nil {
		t.Errorf("DENY, no hook_error: %v", err)
	}
	if err := run(deny, witness, answersHookError("other", "V1", "INVALID_RESPONSE"), answersHookError("s", "V2", "VETO_FAILED")); err != nil {
		t.Errorf("hook_errors of another session or subscriber: %v", err)
	}
	if err := run(deny, witness, answersHookError("s", "V1", "INVALID_RESPONSE")); err == nil || errors.As(err, &nr) || !strings.Contains(err.Error(), "not its failure") {
		t.Errorf("DENY reported as a failure: want a failure, got %v", err)
	}
}

// An echo that only respells the empty lists is judged by what the kernel
// did with it: no hook_error for it, and the turn's model request carries
// its messages.
func TestRespelledEchoJudged(t *testing.T) {
	msgs := `[{"role":"user","content":[{"type":"text","text":"hi"}]}]`
	params := json.RawMessage(`{"point":"pre-model-call","subscriber":"T","mode":"transform","payload":{"variant":"pre-model-call","model":"m","messages":` + msgs + `,"tools":[]}}`)
	result := json.RawMessage(`{"outcome":"transform","payload":{"messages":` + msgs + `,"model":"m","tools":null,"variant":"pre-model-call"}}`)
	other := []wire.Message{{Role: "user", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: "bye"}}}}
	var sent []wire.Message
	_ = json.Unmarshal([]byte(msgs), &sent)
	run := func(dispatched bool, model []wire.Message, events ...wire.Event) error {
		w := fakes.NewWorld()
		if dispatched {
			var p wire.HookDispatchParams
			_ = json.Unmarshal(params, &p)
			w.Log.Finish(w.Log.Begin(calllog.Request, wire.MethodHookDispatch, "s", "t1", "hook pre-model-call T", params, p), result, nil)
		}
		if model != nil {
			w.Log.Finish(w.Log.Begin(calllog.Request, wire.MethodModelStream, "s", "t1", "model/stream", nil, wire.ModelStreamParams{Messages: model}), json.RawMessage(`{"events":[]}`), nil)
		}
		answersNotify(w, events...)
		s := &Scenario{World: w, SessionID: "s", ran: true, env: &Env{}}
		return s.echoTakenAsUnchanged("T")
	}
	var nr *notReachedError
	if err := run(false, sent); !errors.As(err, &nr) {
		t.Errorf("never dispatched: want not reached, got %v", err)
	}
	if err := run(true, sent); err != nil {
		t.Errorf("taken as unchanged: %v", err)
	}
	for name, c := range map[string]struct {
		err  error
		want string
	}{
		"reported as a failure": {run(true, sent, answersHookError("s", "T", "INVALID_RESPONSE")), "tools [] → null"},
		"the turn stopped":      {run(true, nil), "no model request"},
		"other messages sent":   {run(true, other), "differs"},
	} {
		if c.err == nil || errors.As(c.err, &nr) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: want a failure saying %q, got %v", name, c.want, c.err)
		}
	}
}
