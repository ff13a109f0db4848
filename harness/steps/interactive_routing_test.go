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

// An interactive call is the frontend's (A-16 step 9b): the count of a
// tool's interactive requests counts frontend/interactive requests only.
// A kernel that sent none and carried the calls out as tool/invoke leaves
// the check not reached (PA-15 judges the routing): before, the count took
// a tool/invoke for an interactive request, so PA-07, TA-28 and ER-11 passed
// on a kernel that never asked the frontend (langchaingo), while TA-19's
// "calls carried out" read the same call as never carried out.
func TestInteractiveRequestsAreTheFrontends(t *testing.T) {
	run := func(methods ...string) error {
		w := fakes.NewWorld()
		for i, m := range methods {
			var v any = wire.InteractiveParams{CallID: "c" + string(rune('1'+i)), ToolName: "confirm"}
			if m == wire.MethodToolInvoke {
				v = wire.ToolInvokeParams{CallID: "c" + string(rune('1'+i)), Tool: "confirm"}
			}
			w.Log.Finish(w.Log.Begin(calllog.Request, m, "s", "t1", m, nil, v), "ok", nil)
		}
		s := &Scenario{World: w, SessionID: "s", ran: true, env: &Env{}}
		s.Cfg.Tools = []wire.ToolSchema{{Name: "confirm", Kind: wire.KindInteractive}}
		return (&concurrency{s: s}).interactiveCount(2, "confirm")
	}
	var nr *notReachedError
	if err := run(wire.MethodFrontendInteractive, wire.MethodFrontendInteractive); err != nil {
		t.Errorf("two frontend/interactive requests: %v", err)
	}
	if err := run(wire.MethodToolInvoke, wire.MethodToolInvoke); !errors.As(err, &nr) || !strings.Contains(err.Error(), "PA-15") {
		t.Errorf("two tool/invokes of an interactive tool: want not reached naming PA-15, got %v", err)
	}
	if err := run(wire.MethodFrontendInteractive, wire.MethodToolInvoke); err == nil || errors.As(err, &nr) || !strings.Contains(err.Error(), "1 tool/invoke") {
		t.Errorf("one of each: want a failure naming the tool/invoke, got %v", err)
	}
	if err := run(); err == nil || errors.As(err, &nr) {
		t.Errorf("no request at all: want a failure, got %v", err)
	}
}

// TA-19 judges whether the bound turn's calls ran to their end before the
// final-answer request. An interactive call a kernel carried out as a
// tool/invoke still shows that (its routing is PA-15's): in time it
// passes, still in flight when the final request went out it fails.
// Before, such a call was "never carried out" (a failure on the routing),
// then, for a while, not reached, which hid a late call.
func TestBoundTurnCallsJudgedWhateverTheRoute(t *testing.T) {
	run := func(method string, answeredFirst bool) error {
		w := fakes.NewWorld()
		reply, _ := json.Marshal(wire.ModelStreamResult{Events: []wire.StreamEvent{{Type: wire.EventToolCall, ID: "c1", Name: "confirm"}}})
		first := w.Log.Begin(calllog.Request, wire.MethodModelStream, "s", "t1", "model", nil, wire.ModelStreamParams{})
		w.Log.Finish(first, json.RawMessage(reply), nil)
		var v any = wire.InteractiveParams{CallID: "c1", ToolName: "confirm"}
		if method == wire.MethodToolInvoke {
			v = wire.ToolInvokeParams{CallID: "c1", Tool: "confirm"}
		}
		call := w.Log.Begin(calllog.Request, method, "s", "t1", method, nil, v)
		if answeredFirst {
			w.Log.Finish(call, "ok", nil)
		}
		w.Log.Finish(w.Log.Begin(calllog.Request, wire.MethodModelStream, "s", "t2", "model", nil, wire.ModelStreamParams{}), json.RawMessage(`{"events":[]}`), nil)
		if !answeredFirst {
			w.Log.Finish(call, "ok", nil)
		}
		s := &Scenario{World: w, SessionID: "s", ran: true, env: &Env{}}
		s.Cfg.Tools = []wire.ToolSchema{{Name: "confirm", Kind: wire.KindInteractive}}
		return s.callsCarriedOut("1", "2")
	}
	for _, m := range []string{wire.MethodFrontendInteractive, wire.MethodToolInvoke} {
		if err := run(m, true); err != nil {
			t.Errorf("%s answered before the final request: %v", m, err)
		}
		if err := run(m, false); err == nil || !strings.Contains(err.Error(), "had not finished") {
			t.Errorf("%s still in flight at the final request: want a failure, got %v", m, err)
		}
	}
}
