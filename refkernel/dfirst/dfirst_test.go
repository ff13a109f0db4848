package dfirst

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentconform/conform/spec/wire"
)

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func TestEvalFailsClosed(t *testing.T) {
	mem := map[string]json.RawMessage{
		"zero": raw(`0`), "one": raw(`1`), "empty": raw(`""`), "text": raw(`"lots"`), "null": raw(`null`),
		"no": raw(`false`), "list": raw(`[]`), "obj": raw(`{"a":1}`), "tier": raw(`"gold"`), "n": raw(`150`),
	}
	cases := []struct {
		c    wire.DFCondition
		want bool
		err  bool
	}{
		{wire.DFCondition{Key: "unset"}, false, true},
		{wire.DFCondition{Key: "unset", Op: wire.OpNe, Value: raw(`1`)}, false, true},
		{wire.DFCondition{Key: "zero"}, false, false},
		{wire.DFCondition{Key: "one"}, true, false},
		{wire.DFCondition{Key: "empty"}, false, false},
		{wire.DFCondition{Key: "null", Op: wire.OpTruthy}, false, false},
		{wire.DFCondition{Key: "no"}, false, false},
		{wire.DFCondition{Key: "list"}, false, false},
		{wire.DFCondition{Key: "obj"}, true, false},
		{wire.DFCondition{Key: "text", Op: wire.OpGt, Value: raw(`100`)}, false, true},
		{wire.DFCondition{Key: "obj", Op: wire.OpLt, Value: raw(`1`)}, false, true},
		{wire.DFCondition{Key: "n", Op: wire.OpGt, Value: raw(`100`)}, true, false},
		{wire.DFCondition{Key: "n", Op: wire.OpLe, Value: raw(`100`)}, false, false},
		{wire.DFCondition{Key: "n", Op: wire.OpEq, Value: raw(`150.0`)}, true, false},
		{wire.DFCondition{Key: "tier", Op: wire.OpEq, Value: raw(`"gold"`)}, true, false},
		{wire.DFCondition{Key: "tier", Op: wire.OpNe, Value: raw(`"gold"`)}, false, false},
		{wire.DFCondition{Key: "tier", Op: wire.OpGe, Value: raw(`"bronze"`)}, true, false},
		{wire.DFCondition{Key: "obj", Op: wire.OpEq, Value: raw(`{"a":1}`)}, true, false},
		{wire.DFCondition{Key: "n", Op: wire.OpGt}, false, true},
		{wire.DFCondition{Key: "n", Op: "between", Value: raw(`1`)}, false, true},
	}
	for _, c := range cases {
		got, err := Eval(c.c, mem)
		if got != c.want || (err != nil) != c.err {
			t.Errorf("Eval(%+v) = %v, %v; want %v, error %v", c.c, got, err, c.want, c.err)
		}
		// Only a clause that evaluates to true holds.
		if held := (FailClosed{}).Holds([]wire.DFCondition{c.c}, mem); held != (c.want && !c.err) {
			t.Errorf("Holds(%+v) = %v", c.c, held)
		}
	}
	if !(FailClosed{}).Holds(nil, nil) {
		t.Error("an empty requires list must hold")
	}
	if (FailClosed{}).Holds([]wire.DFCondition{{Key: "one"}, {Key: "unset"}}, mem) {
		t.Error("a list with an unset clause must not hold")
	}
}

// fakeEnv records dispatches; gated calls go through the session's Admit as
// Gated does.
type fakeEnv struct {
	rt       Session
	mu       sync.Mutex
	invoked  []string
	confirm  *bool // nil: no confirmer
	asked    []string
	writes   map[string]map[string]json.RawMessage // tool → what it writes as it runs
	failWith error
	n        int
}

func (f *fakeEnv) env() Env {
	e := Env{CallContext: wire.CallContext{SessionID: "s"}, CallID: func() string {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.n++
		return "step-" + string(rune('0'+f.n))
	}}
	if f.confirm != nil {
		e.Confirm = func(_ context.Context, p wire.ConfirmParams) (wire.ConfirmResult, error) {
			f.mu.Lock()
			f.asked = append(f.asked, p.Tool)
			f.mu.Unlock()
			return wire.ConfirmResult{Confirmed: *f.confirm}, nil
		}
	}
	e.Dispatch = func(ctx context.Context, c Call) (Dispatched, error) {
		v, err := f.rt.Admit(ctx, e, c)
		if err != nil || v != Allow {
			return Dispatched{Verdict: v}, err
		}
		f.rt.Begin(c)
		f.mu.Lock()
		f.invoked = append(f.invoked, c.Tool)
		w := f.writes[c.Tool]
		f.mu.Unlock()
		if w != nil {
			if err := f.rt.Write(c.ID, w); err != nil {
				return Dispatched{}, err
			}
		}
		if f.failWith != nil {
			f.rt.Finish(c, false)
			return Dispatched{Verdict: Allow, Ran: true}, f.failWith
		}
		f.rt.Finish(c, true)
		return Dispatched{Verdict: Allow, Ran: true, Result: wire.ToolInvokeResult{Output: raw(`"ok"`)}}, nil
	}
	return e
}

var tools = []wire.ToolSchema{
	{Provider: "p", Name: "lookup", Kind: wire.KindDataSource},
	{Provider: "p", Name: "refund", Kind: wire.KindResource},
	{Provider: "p", Name: "notify", Kind: wire.KindResource},
}

func TestPassRunsDeterminedStepsAndParks(t *testing.T) {
	cfg := wire.DFConfig{
		Memory: map[string]json.RawMessage{"order": raw(`"A-1"`)},
		Tools:  []wire.DFToolGate{{Tool: "refund", Requires: []wire.DFCondition{{Key: "approved"}}}},
		Blocks: []wire.DFBlock{
			{Name: "a", Steps: []wire.DFStep{
				{Type: wire.StepCollect, Key: "order"},
				{Type: wire.StepExecuteTool, Tool: "lookup"},
				{Type: wire.StepExecuteTool, Tool: "refund"}, // parked until approved
				{Type: wire.StepAction, Text: "refunded"},
			}},
			{Name: "b", Steps: []wire.DFStep{
				{Type: wire.StepNoop},
				{Type: wire.StepAction, Text: "hello"},
				{Type: wire.StepSetMemory, Key: "approved", Value: raw(`true`)}, // unparks block a in the same pass
			}},
		},
	}
	if err := (Standard{}).Validate(cfg, tools); err != nil {
		t.Fatal(err)
	}
	rt := Standard{}.Open(cfg, tools, nil)
	f := &fakeEnv{rt: rt}
	out, err := rt.Pass(context.Background(), f.env())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"lookup", "refund"}; !slices.Equal(f.invoked, want) {
		t.Errorf("invoked %v, want %v", f.invoked, want)
	}
	if want := []string{"hello", "refunded"}; !slices.Equal(out.Responses, want) || !out.End {
		t.Errorf("outcome %+v, want responses %v and the end of the run", out, want)
	}
	st, res := rt.Close()
	if !slices.Equal(st.Positions, []int{4, 3}) {
		t.Errorf("positions %v", st.Positions)
	}
	if len(res.CallRecords) != 2 || res.CallRecords[1].Origin != wire.OriginStep || res.CallRecords[1].Block != "a" {
		t.Errorf("records %+v", res.CallRecords)
	}
}

func TestModelStepWaitsForTheModel(t *testing.T) {
	cfg := wire.DFConfig{Blocks: []wire.DFBlock{{Name: "m", Steps: []wire.DFStep{
		{Type: wire.StepAction, Text: "one moment"},
		{Type: wire.StepModel},
		{Type: wire.StepAction, Text: "done"},
	}}}}
	rt := Standard{}.Open(cfg, tools, nil)
	f := &fakeEnv{rt: rt}
	out, _ := rt.Pass(context.Background(), f.env())
	if out.End || !slices.Equal(out.Responses, []string{"one moment"}) {
		t.Fatalf("a block waiting for the model must not end the run: %+v", out)
	}
	rt.ModelAnswered()
	out, _ = rt.Pass(context.Background(), f.env())
	if !out.End || !slices.Equal(out.Responses, []string{"done"}) {
		t.Fatalf("after the model answered: %+v", out)
	}
}

func TestGateAndConfirmation(t *testing.T) {
	cfg := wire.DFConfig{Tools: []wire.DFToolGate{
		{Tool: "refund", Requires: []wire.DFCondition{{Key: "ok"}}, RequiresConfirmation: true},
	}}
	rt := Standard{}.Open(cfg, tools, nil)
	no := false
	f := &fakeEnv{rt: rt, confirm: &no}
	env := f.env()
	specs := []wire.ToolSpec{{Name: "lookup"}, {Name: "refund"}}
	if got := rt.Offered(specs); len(got) != 1 || got[0].Name != "lookup" {
		t.Errorf("offered %v while the gate is closed", got)
	}
	c := Call{ID: "c1", Tool: "refund", Origin: wire.OriginModel}
	if v, _ := rt.Admit(context.Background(), env, c); v != Closed || len(f.asked) != 0 {
		t.Errorf("closed gate: verdict %v, asked %v", v, f.asked)
	}
	rt.Begin(Call{ID: "w", Tool: "lookup"})
	if err := rt.Write("w", map[string]json.RawMessage{"ok": raw(`true`)}); err != nil {
		t.Fatal(err)
	}
	rt.Finish(Call{ID: "w", Tool: "lookup"}, true)
	if err := rt.Write("w", map[string]json.RawMessage{"x": raw(`1`)}); !errors.Is(err, ErrNotInFlight) {
		t.Errorf("a write after the call ended: %v", err)
	}
	if got := rt.Offered(specs); len(got) != 2 {
		t.Errorf("offered %v once the gate opened", got)
	}
	if v, _ := rt.Admit(context.Background(), env, c); v != Declined || len(f.asked) != 1 {
		t.Errorf("declined confirmation: verdict %v, asked %v", v, f.asked)
	}
	yes := true
	f.confirm = &yes
	if v, _ := rt.Admit(context.Background(), f.env(), c); v != Allow {
		t.Errorf("confirmed: verdict %v", v)
	}
	if v, _ := rt.Admit(context.Background(), Env{}, c); v != Declined {
		t.Errorf("without a way to ask: verdict %v", v)
	}
}

func TestCancelledStepRunsAgainAndKeepsMemory(t *testing.T) {
	cfg := wire.DFConfig{Blocks: []wire.DFBlock{{Name: "save", Steps: []wire.DFStep{{Type: wire.StepExecuteTool, Tool: "notify"}}}}}
	rt := Standard{}.Open(cfg, tools, nil)
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeEnv{rt: rt, writes: map[string]map[string]json.RawMessage{"notify": {"k": raw(`"v"`)}}}
	f.failWith = context.Canceled
	env := f.env()
	// The cancel arrives while the step's call is in flight.
	_, err := rt.Pass(ctx, Env{CallContext: env.CallContext, CallID: env.CallID,
		Dispatch: func(ctx context.Context, c Call) (Dispatched, error) { cancel(); return env.Dispatch(ctx, c) }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a pass whose call was cancelled must fail with the cancellation, got %v", err)
	}
	st, res := rt.Close()
	if len(res.CallRecords) != 0 || string(res.Memory["k"]) != `"v"` || st.Positions[0] != 0 {
		t.Fatalf("after the cancel: records %v, memory %v, positions %v", res.CallRecords, res.Memory, st.Positions)
	}
	next := Standard{}.Open(cfg, tools, &st)
	f2 := &fakeEnv{rt: next}
	if _, err := next.Pass(context.Background(), f2.env()); err != nil {
		t.Fatal(err)
	}
	_, res = next.Close()
	if !slices.Equal(f2.invoked, []string{"notify"}) || len(res.CallRecords) != 1 || string(res.Memory["k"]) != `"v"` {
		t.Fatalf("next run: invoked %v, records %v, memory %v", f2.invoked, res.CallRecords, res.Memory)
	}
}

func TestSkills(t *testing.T) {
	cfg := wire.DFConfig{Skills: []wire.DFSkill{
		{Name: "faq"}, {Name: "billing", Requires: []wire.DFCondition{{Key: "verified"}}},
	}, ActiveSkill: "faq"}
	rt := Standard{}.Open(cfg, tools, nil)
	var req wire.ModelStreamParams
	rt.Routing(&req)
	if len(req.Skills) != 1 || req.ActiveSkill != "faq" {
		t.Errorf("routing %+v", req)
	}
	if rt.Switch("billing") || rt.Switch("nope") {
		t.Error("a switch to an ineligible or unknown skill was accepted")
	}
	rt.Begin(Call{ID: "v"})
	_ = rt.Write("v", map[string]json.RawMessage{"verified": raw(`true`)})
	if !rt.Switch("billing") {
		t.Error("a switch to an eligible skill was refused")
	}
	rt.Routing(&req)
	if len(req.Skills) != 2 || req.ActiveSkill != "billing" {
		t.Errorf("routing %+v", req)
	}
}

func TestValidate(t *testing.T) {
	bad := []wire.DFConfig{
		{Tools: []wire.DFToolGate{{Tool: "nope"}}},
		{Tools: []wire.DFToolGate{{Tool: "lookup"}, {Tool: "lookup"}}},
		{Tools: []wire.DFToolGate{{Tool: "lookup", Requires: []wire.DFCondition{{Key: "k", Op: wire.OpGt}}}}},
		{Blocks: []wire.DFBlock{{Name: "b", Steps: []wire.DFStep{{Type: "jump"}}}}},
		{Blocks: []wire.DFBlock{{Name: "b", Steps: []wire.DFStep{{Type: wire.StepExecuteTool, Tool: "nope"}}}}},
		{Blocks: []wire.DFBlock{{Name: "b", Steps: []wire.DFStep{{Type: wire.StepSetMemory, Key: "k"}}}}},
		{Skills: []wire.DFSkill{{Name: "a"}, {Name: "a"}}},
		{ActiveSkill: "ghost"},
	}
	for i, c := range bad {
		if err := (Standard{}).Validate(c, tools); err == nil {
			t.Errorf("config %d was accepted", i)
		} else if !strings.Contains(err.Error(), "deterministic_first") {
			t.Errorf("config %d: the error does not name the block: %v", i, err)
		}
	}
}
