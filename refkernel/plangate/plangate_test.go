package plangate

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

func TestEvaluate(t *testing.T) {
	rules := []wire.PolicyRule{
		{Name: "no-rm", Provider: "fs", Tool: "rm", Decision: "deny"},
		{Name: "fs-writes", Provider: "fs", Kind: wire.KindResource, Decision: "allow"},
		{Name: "grep-ask", Tool: "grep", Decision: "ask"},
		{Tool: "shout", Decision: "DENY"},
	}
	cases := []struct {
		name     string
		rules    []wire.PolicyRule
		call     Call
		decision string
		by       string
	}{
		{"resource default", nil, Call{Provider: "p", Tool: "w", Kind: wire.KindResource}, wire.PolicyAsk, DecidedByDefault},
		{"data_source default", nil, Call{Provider: "p", Tool: "r", Kind: wire.KindDataSource}, wire.PolicyAllow, DecidedByDefault},
		{"interactive default", nil, Call{Provider: "p", Tool: "q", Kind: wire.KindInteractive}, wire.PolicyAllow, DecidedByDefault},
		{"first match wins", rules, Call{Provider: "fs", Tool: "rm", Kind: wire.KindResource}, wire.PolicyDeny, "rule:no-rm"},
		{"kind match", rules, Call{Provider: "fs", Tool: "write", Kind: wire.KindResource}, wire.PolicyAllow, "rule:fs-writes"},
		{"kind mismatch falls through", rules, Call{Provider: "fs", Tool: "read", Kind: wire.KindDataSource}, wire.PolicyAllow, DecidedByDefault},
		{"empty fields match anything", rules, Call{Provider: "x", Tool: "grep", Kind: wire.KindDataSource}, wire.PolicyAsk, "rule:grep-ask"},
		{"unnamed rule, case folded", rules, Call{Provider: "x", Tool: "shout", Kind: wire.KindInteractive}, wire.PolicyDeny, "rule:#4"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Standard{}.Evaluate(c.rules, c.call)
			if v.Decision != c.decision || v.DecidedBy != c.by {
				t.Fatalf("got %+v, want %s by %s", v, c.decision, c.by)
			}
		})
	}
}

// fakeFront scripts permission answers and records everything.
type fakeFront struct {
	mu      sync.Mutex
	log     []string
	events  []wire.Event
	answers []wire.PlanDecision // consumed in order; PlanItemID filled in
	preview func(ctx context.Context, p wire.ToolPreviewParams) (wire.ToolPreviewResult, error)
}

// Permission logs "ask a,b" for a request about items of tools a and b and
// answers each item with the next scripted answer.
func (f *fakeFront) Permission(_ context.Context, p wire.PermissionParams) (wire.PermissionResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var tools []string
	var res wire.PermissionResult
	for _, it := range p.Items {
		tools = append(tools, it.Tool)
		if len(f.answers) == 0 {
			return wire.PermissionResult{}, errors.New("no answer scripted")
		}
		d := f.answers[0]
		f.answers = f.answers[1:]
		d.PlanItemID = it.ID
		res.Decisions = append(res.Decisions, d)
	}
	f.log = append(f.log, "ask "+strings.Join(tools, ","))
	return res, nil
}

func (f *fakeFront) Preview(ctx context.Context, p wire.ToolPreviewParams) (wire.ToolPreviewResult, error) {
	f.mu.Lock()
	f.log = append(f.log, "preview "+p.Tool)
	f.mu.Unlock()
	return f.preview(ctx, p)
}

func (f *fakeFront) Notify(_ string, params any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := params.(wire.Event); ok {
		f.events = append(f.events, e)
		f.log = append(f.log, "event "+e.Kind)
	}
}

func (f *fakeFront) kinds(kind string) []wire.Event {
	var out []wire.Event
	for _, e := range f.events {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

var cc = wire.CallContext{SessionID: "s", TurnID: "t"}

func item(id, provider, tool string) wire.PlanItem {
	return wire.PlanItem{ID: id, ToolCallID: "call-" + id, Provider: provider, Tool: tool, Kind: wire.KindResource}
}

func TestPrecheckDowngradesAsk(t *testing.T) {
	f := &fakeFront{}
	g := NewGate(GateConfig{Policy: Standard{}, Frontend: f, Rules: []wire.PolicyRule{
		{Name: "ask-grep", Tool: "grep", Decision: "ask"},
		{Name: "deny-cat", Tool: "cat", Decision: "deny"},
	}})
	asked := g.Precheck(cc, Call{ID: "c1", Tool: "grep", Kind: wire.KindDataSource})
	denied := g.Precheck(cc, Call{ID: "c2", Tool: "cat", Kind: wire.KindDataSource})
	allowed := g.Precheck(cc, Call{ID: "c3", Tool: "ls", Kind: wire.KindInteractive})
	if asked.Decision != wire.PolicyDeny || !asked.Downgraded || denied.Decision != wire.PolicyDeny || denied.Downgraded || allowed.Decision != wire.PolicyAllow {
		t.Fatalf("verdicts %+v %+v %+v", asked, denied, allowed)
	}
	evs := f.kinds(wire.EventAskDowngrade)
	if len(evs) != 1 || evs[0].Payload["tool_call_id"] != "c1" || evs[0].Payload["rule"] != "ask-grep" || evs[0].Payload["kind"] != wire.KindDataSource {
		t.Fatalf("ask_downgrade events %+v", evs)
	}
	if txt := DenialText(asked, wire.KindDataSource); !strings.Contains(txt, "downgraded") || !strings.Contains(txt, "ask-grep") {
		t.Errorf("downgrade text %q", txt)
	}
	if txt := DenialText(denied, wire.KindDataSource); txt != "denied by policy rule deny-cat" {
		t.Errorf("deny text %q", txt)
	}
	if len(f.log) != 1 { // the one event: nobody was asked
		t.Errorf("log %v", f.log)
	}
}

func TestDecidePerItem(t *testing.T) {
	f := &fakeFront{answers: []wire.PlanDecision{{Decision: wire.DecisionDeny}}}
	g := NewGate(GateConfig{Policy: Standard{}, Frontend: f, Rules: []wire.PolicyRule{
		{Name: "p1", Provider: "P1", Decision: "allow"},
		{Name: "p2", Provider: "P2", Decision: "ask"},
		{Name: "p3", Provider: "P3", Decision: "deny"},
	}})
	plan := wire.Plan{Items: []wire.PlanItem{item("1", "P1", "op"), item("2", "P2", "op"), item("3", "P3", "op")}}
	rulings, err := g.Decide(context.Background(), cc, &plan)
	if err != nil {
		t.Fatal(err)
	}
	if !rulings[0].Allowed || rulings[1].Allowed || rulings[2].Allowed {
		t.Fatalf("rulings %+v", rulings)
	}
	if rulings[1].Reason != "denied by the user" || rulings[2].Reason != "denied by policy rule p3" {
		t.Errorf("reasons %q, %q", rulings[1].Reason, rulings[2].Reason)
	}
	want := []string{"event plan_item", "event plan_item", "event plan_item", "ask op"}
	if !slices.Equal(f.log, want) {
		t.Errorf("log %v", f.log)
	}
	var got []string
	for _, e := range f.kinds(wire.EventPlanItem) {
		got = append(got, e.Payload["decision"].(string)+"/"+e.Payload["decided_by"].(string))
	}
	if !slices.Equal(got, []string{"allow/rule:p1", "ask/rule:p2", "deny/rule:p3"}) {
		t.Errorf("plan_item rows %v", got)
	}
}

func TestSessionScopeIsRemembered(t *testing.T) {
	f := &fakeFront{answers: []wire.PlanDecision{{Decision: wire.DecisionAllow, Scope: wire.ScopeSession}}}
	g := NewGate(GateConfig{Policy: Standard{}, Frontend: f})
	for turn := range 3 {
		plan := wire.Plan{Items: []wire.PlanItem{item("x", "P", "op")}}
		rulings, err := g.Decide(context.Background(), cc, &plan)
		if err != nil || !rulings[0].Allowed {
			t.Fatalf("turn %d: %+v, %v", turn, rulings, err)
		}
		if turn > 0 && plan.Items[0].DecidedBy != DecidedBySession {
			t.Errorf("turn %d decided by %q", turn, plan.Items[0].DecidedBy)
		}
	}
	if n := strings.Count(strings.Join(f.log, ","), "ask"); n != 1 {
		t.Fatalf("asked %d times: %v", n, f.log)
	}
	// Another session starts with nothing remembered.
	f2 := &fakeFront{answers: []wire.PlanDecision{{Decision: wire.DecisionAllow}}}
	plan := wire.Plan{Items: []wire.PlanItem{item("y", "P", "op")}}
	if _, err := NewGate(GateConfig{Policy: Standard{}, Frontend: f2}).Decide(context.Background(), cc, &plan); err != nil || len(f2.kinds(wire.EventPlanItem)) != 1 || f2.log[len(f2.log)-1] != "ask op" {
		t.Fatalf("new session not asked: %v %v", f2.log, err)
	}
}

func TestAlwaysScope(t *testing.T) {
	t.Run("refused without a store, then asked again", func(t *testing.T) {
		f := &fakeFront{answers: []wire.PlanDecision{
			{Decision: wire.DecisionAllow, Scope: wire.ScopeAlways},
			{Decision: wire.DecisionAllow, Scope: wire.ScopeOnce},
		}}
		g := NewGate(GateConfig{Policy: Standard{}, Frontend: f, Store: &MemoryStore{}})
		plan := wire.Plan{Items: []wire.PlanItem{item("1", "P", "op")}}
		rulings, err := g.Decide(context.Background(), cc, &plan)
		if err != nil || !rulings[0].Allowed {
			t.Fatalf("%+v, %v", rulings, err)
		}
		errs := f.kinds(wire.EventError)
		if len(errs) != 1 || errs[0].Payload["category"] != CategoryAlwaysUnsupported {
			t.Fatalf("error events %+v", errs)
		}
		if n := strings.Count(strings.Join(f.log, ","), "ask"); n != 2 {
			t.Fatalf("asked %d times", n)
		}
	})
	t.Run("kept for later sessions of the profile", func(t *testing.T) {
		store := &MemoryStore{}
		f := &fakeFront{answers: []wire.PlanDecision{{Decision: wire.DecisionAllow, Scope: wire.ScopeAlways}}}
		cfg := GateConfig{Policy: Standard{}, Frontend: f, Store: store, PersistAlways: true, Profile: "dev"}
		plan := wire.Plan{Items: []wire.PlanItem{item("1", "P", "op")}}
		if _, err := NewGate(cfg).Decide(context.Background(), cc, &plan); err != nil {
			t.Fatal(err)
		}
		plan = wire.Plan{Items: []wire.PlanItem{item("2", "P", "op")}}
		rulings, err := NewGate(cfg).Decide(context.Background(), cc, &plan)
		if err != nil || !rulings[0].Allowed || plan.Items[0].DecidedBy != DecidedByAlways {
			t.Fatalf("%+v %+v %v", rulings, plan.Items[0], err)
		}
		if n := strings.Count(strings.Join(f.log, ","), "ask"); n != 1 {
			t.Fatalf("asked %d times", n)
		}
	})
}

func TestCorrectedInputIsPassedOn(t *testing.T) {
	f := &fakeFront{answers: []wire.PlanDecision{{Decision: wire.DecisionAllow, CorrectedInput: json.RawMessage(`{"path":"b"}`)}}}
	plan := wire.Plan{Items: []wire.PlanItem{item("1", "P", "op")}}
	rulings, err := NewGate(GateConfig{Policy: Standard{}, Frontend: f}).Decide(context.Background(), cc, &plan)
	if err != nil || string(rulings[0].Input) != `{"path":"b"}` {
		t.Fatalf("%+v, %v", rulings, err)
	}
}

func TestBuild(t *testing.T) {
	stuck := make(chan struct{})
	defer close(stuck)
	f := &fakeFront{preview: func(ctx context.Context, p wire.ToolPreviewParams) (wire.ToolPreviewResult, error) {
		switch p.Tool {
		case "ok":
			return wire.ToolPreviewResult{Preview: "diff of " + string(p.Input)}, nil
		case "fails":
			return wire.ToolPreviewResult{}, errors.New("no preview")
		default: // hangs, ignoring ctx
			<-stuck
			return wire.ToolPreviewResult{}, nil
		}
	}}
	res := func(name string, preview bool) wire.ToolSchema {
		return wire.ToolSchema{Provider: "P", Name: name, Kind: wire.KindResource, Risk: "high", Description: "does " + name, HasPreview: preview}
	}
	props := []Proposal{
		{ToolCallID: "c1", Schema: res("ok", true), Input: json.RawMessage(`{"a":1}`)},
		{ToolCallID: "c2", Schema: res("fails", true)},
		{ToolCallID: "c3", Schema: res("hangs", true)},
		{ToolCallID: "c4", Schema: res("none", false)},
	}
	n := 0
	newID := func() string { n++; return "item-" + string(rune('0'+n)) }
	start := time.Now()
	plan := Build(context.Background(), f, cc, props, newID, 30*time.Millisecond)
	if time.Since(start) > 5*time.Second {
		t.Fatal("a hanging preview held plan building")
	}
	it := plan.Items
	if len(it) != 4 || it[0].ID != "item-1" || it[0].Risk != "high" || it[0].Description != "does ok" || it[0].Decision != Pending {
		t.Fatalf("items %+v", it)
	}
	if it[0].Preview == nil || *it[0].Preview != `diff of {"a":1}` {
		t.Errorf("preview %v", it[0].Preview)
	}
	for _, i := range []int{1, 2, 3} {
		if it[i].Preview != nil {
			t.Errorf("item %d has preview %q", i, *it[i].Preview)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if slices.Contains(f.log, "preview none") {
		t.Error("preview asked of a tool without one")
	}
}

func TestValidateRules(t *testing.T) {
	if ValidateRules([]wire.PolicyRule{{Decision: "maybe"}}) == nil {
		t.Fatal("accepted unknown decision")
	}
	if err := ValidateRules([]wire.PolicyRule{{Decision: "Allow"}, {Decision: "ask"}, {Decision: "deny"}}); err != nil {
		t.Fatal(err)
	}
}

func TestAsksAreBatchedAndDecidedPerItem(t *testing.T) {
	f := &fakeFront{answers: []wire.PlanDecision{{Decision: wire.DecisionAllow}, {Decision: wire.DecisionDeny}}}
	g := NewGate(GateConfig{Policy: Standard{}, Frontend: f})
	plan := wire.Plan{Items: []wire.PlanItem{item("1", "P", "save"), item("2", "P", "drop")}}
	rulings, err := g.Decide(context.Background(), cc, &plan)
	if err != nil {
		t.Fatal(err)
	}
	if !rulings[0].Allowed || rulings[1].Allowed || rulings[1].Reason != "denied by the user" {
		t.Fatalf("rulings %+v", rulings)
	}
	if !slices.Equal(f.log, []string{"event plan_item", "event plan_item", "ask save,drop"}) {
		t.Fatalf("log %v", f.log)
	}
}

func TestInvalidCorrectionIsRefusedAndAskedAgain(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{"key": map[string]any{"type": "string"}}, "required": []any{"key"}}
	f := &fakeFront{answers: []wire.PlanDecision{
		{Decision: wire.DecisionAllow, CorrectedInput: json.RawMessage(`{"key":42}`)},
		{Decision: wire.DecisionAllow, CorrectedInput: json.RawMessage(`{"key":"ok"}`)},
	}}
	g := NewGate(GateConfig{Policy: Standard{}, Frontend: f, Tools: map[string]wire.ToolSchema{"op": {Name: "op", InputSchema: schema}}})
	plan := wire.Plan{Items: []wire.PlanItem{item("1", "P", "op")}}
	rulings, err := g.Decide(context.Background(), cc, &plan)
	if err != nil || !rulings[0].Allowed || string(rulings[0].Input) != `{"key":"ok"}` {
		t.Fatalf("%+v, %v", rulings, err)
	}
	errs := f.kinds(wire.EventError)
	if len(errs) != 1 || errs[0].Payload["category"] != CategoryInvalidCorrection || errs[0].Payload["plan_item_id"] != "1" {
		t.Fatalf("error events %+v", errs)
	}
}

func TestUnusableAnswersEndInADenialAfterMaxAsks(t *testing.T) {
	var answers []wire.PlanDecision
	for range MaxAsks {
		answers = append(answers, wire.PlanDecision{Decision: wire.DecisionAllow, Scope: wire.ScopeAlways})
	}
	f := &fakeFront{answers: answers}
	plan := wire.Plan{Items: []wire.PlanItem{item("1", "P", "op")}}
	rulings, err := NewGate(GateConfig{Policy: Standard{}, Frontend: f}).Decide(context.Background(), cc, &plan)
	if err != nil || rulings[0].Allowed || !strings.Contains(rulings[0].Reason, "no usable decision") {
		t.Fatalf("%+v, %v", rulings, err)
	}
	if len(f.kinds(wire.EventError)) != MaxAsks {
		t.Fatalf("error events %+v", f.kinds(wire.EventError))
	}
}

func TestCheckCorrection(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}, "additionalProperties": false}
	cases := []struct {
		schema map[string]any
		in     string
		ok     bool
	}{
		{schema, `{"n":1}`, true},
		{schema, `{"n":"1"}`, false}, // no coercion
		{schema, `{"n":1,"x":2}`, false},
		{schema, `not json`, false},
		{nil, `{"anything":true}`, true},
		{nil, `[1]`, false},
	}
	for _, c := range cases {
		if err := (StandardAnswers{}).CheckCorrection(c.schema, json.RawMessage(c.in)); (err == nil) != c.ok {
			t.Errorf("%s: err = %v, want ok %v", c.in, err, c.ok)
		}
	}
}

func TestLifetime(t *testing.T) {
	a := StandardAnswers{}
	cases := []struct {
		scope   string
		persist bool
		want    Lifetime
	}{
		{"", false, LifetimeOnce}, {wire.ScopeOnce, true, LifetimeOnce}, {wire.ScopeSession, false, LifetimeSession},
		{wire.ScopeAlways, true, LifetimeAlways}, {wire.ScopeAlways, false, LifetimeRefused}, {"FOREVER", true, LifetimeRefused},
	}
	for _, c := range cases {
		if got := a.Lifetime(c.scope, c.persist); got != c.want {
			t.Errorf("Lifetime(%q, %v) = %v, want %v", c.scope, c.persist, got, c.want)
		}
	}
}

func TestBreaker(t *testing.T) {
	b := StandardBreaker{}
	d, a := true, false
	cases := []struct {
		name    string
		cfg     *wire.CircuitBreaker
		history []bool
		trip    bool
		tier    string
	}{
		{"no config", nil, []bool{d, d, d, d}, false, ""},
		{"run reaches N", &wire.CircuitBreaker{Consecutive: 3}, []bool{a, d, d, d}, true, "consecutive"},
		{"allow ends the run", &wire.CircuitBreaker{Consecutive: 3}, []bool{d, d, a, d}, false, ""},
		{"window", &wire.CircuitBreaker{Consecutive: 9, Window: 4, WindowMax: 3}, []bool{d, d, a, d}, true, "window"},
		{"window slides", &wire.CircuitBreaker{Consecutive: 9, Window: 3, WindowMax: 3}, []bool{d, d, a, d}, false, ""},
		{"zero thresholds are off", &wire.CircuitBreaker{}, []bool{d, d, d}, false, ""},
	}
	for _, c := range cases {
		trip, ok := b.Check(c.cfg, c.history)
		if ok != c.trip || trip.Tier != c.tier {
			t.Errorf("%s: got %+v %v", c.name, trip, ok)
		}
	}
	// The gate keeps just enough history for either tier.
	g := NewGate(GateConfig{Policy: Standard{}, CircuitBreaker: &wire.CircuitBreaker{Consecutive: 2, Window: 3, WindowMax: 3}})
	for _, x := range []bool{d, a, d} {
		g.Record(x)
	}
	if _, ok := g.Tripped(); ok {
		t.Fatal("tripped early")
	}
	g.Record(d)
	if trip, ok := g.Tripped(); !ok || trip.Tier != "consecutive" || len(g.history) != 3 {
		t.Fatalf("%+v %v %v", trip, ok, g.history)
	}
}
