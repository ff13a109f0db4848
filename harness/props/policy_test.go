package props

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/spec/wire"
)

// A policy case is a list of rules and one model message of calls to tools
// of every kind, with the human's answer for each resource tool. Policy is a
// function of its inputs (PA-01, PA-06, PA-09, PA-10): the first matching
// rule decides, a rule's empty fields match anything, with no match a
// resource asks and a read or interactive call is allowed, and an ask on a
// read or interactive call is a deny marked as a downgrade.

var policyTools = []wire.ToolSchema{
	{Provider: "alpha", Name: "put", Kind: wire.KindResource, Risk: "moderate", Description: "resource put of alpha", InputSchema: map[string]any{"type": "object"}},
	{Provider: "beta", Name: "post", Kind: wire.KindResource, Risk: "high", Description: "resource post of beta", InputSchema: map[string]any{"type": "object"}},
	{Provider: "alpha", Name: "look", Kind: wire.KindDataSource, Risk: "low", Description: "read look of alpha", InputSchema: map[string]any{"type": "object"},
		Concurrency: &wire.ConcurrencySpec{Safe: true}},
	{Provider: "gamma", Name: "confirm", Kind: wire.KindInteractive, Risk: "low", Description: "interactive confirm of gamma", InputSchema: map[string]any{"type": "object"}},
}

type policyCase struct {
	Rules   []wire.PolicyRule
	Calls   []string          // tool names, in message order
	Answers map[string]string // resource tool → ALLOW or DENY
}

var policyCases = rapid.Custom(func(t *rapid.T) policyCase {
	c := policyCase{Answers: map[string]string{}}
	for i := range rapid.IntRange(0, 4).Draw(t, "rules") {
		c.Rules = append(c.Rules, wire.PolicyRule{
			Name:     fmt.Sprintf("r%d", i+1),
			Provider: rapid.SampledFrom([]string{"", "", "alpha", "beta", "gamma"}).Draw(t, "provider"),
			Tool:     rapid.SampledFrom([]string{"", "", "put", "post", "look", "confirm"}).Draw(t, "tool"),
			// Policy kind matching knows only resource and data_source.
			Kind:     rapid.SampledFrom([]string{"", "", wire.KindResource, wire.KindDataSource}).Draw(t, "kind"),
			Decision: rapid.SampledFrom([]string{wire.PolicyAllow, wire.PolicyAsk, wire.PolicyDeny}).Draw(t, "decision"),
		})
	}
	names := []string{"put", "post", "look", "confirm"}
	for range rapid.IntRange(1, 4).Draw(t, "calls") {
		c.Calls = append(c.Calls, rapid.SampledFrom(names).Draw(t, "call"))
	}
	for _, r := range []string{"put", "post"} {
		c.Answers[r] = rapid.SampledFrom([]string{wire.DecisionAllow, wire.DecisionDeny}).Draw(t, "answer")
	}
	return c
})

func schemaOf(tool string) wire.ToolSchema {
	i := slices.IndexFunc(policyTools, func(s wire.ToolSchema) bool { return s.Name == tool })
	return policyTools[i]
}

// decide is the spec's fold for one call: the decision, the rule that made
// it ("" for the default), and whether an ask was downgraded.
func decide(rules []wire.PolicyRule, tool string) (decision, rule string, downgraded bool) {
	s := schemaOf(tool)
	decision = wire.PolicyAllow
	if s.Kind == wire.KindResource {
		decision = wire.PolicyAsk
	}
	for _, r := range rules {
		if (r.Provider == "" || r.Provider == s.Provider) && (r.Tool == "" || r.Tool == tool) && (r.Kind == "" || r.Kind == s.Kind) {
			decision, rule = r.Decision, r.Name
			break
		}
	}
	if s.Kind != wire.KindResource && decision == wire.PolicyAsk {
		return wire.PolicyDeny, rule, true
	}
	return decision, rule, false
}

type policyRun struct {
	c       policyCase
	session string
	world   *fakes.World
	result  wire.RunSessionResult
}

func runPolicyCase(k *driver.Kernel, c policyCase, session string) (*policyRun, error) {
	w := fakes.NewWorld()
	defer w.Close()
	defer k.Unregister(w)
	for tool, d := range c.Answers {
		w.Frontend.SetPermission(tool, fakes.Permission{Decision: d, Scope: wire.ScopeOnce})
	}
	w.Frontend.SetAnswer("confirm", "yes")
	var calls []fakes.Call
	for i, name := range c.Calls {
		calls = append(calls, fakes.Call{Name: name, Input: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))})
	}
	w.Model.On(1, fakes.Reply{Calls: calls})
	w.Model.On(2, fakes.Reply{Text: "Finished."})
	maxTurns := 3
	cfg := wire.SessionConfig{
		Profile: "props", WorkingDirectory: "/conform/props",
		Bounds: wire.Bounds{MaxTurns: &maxTurns},
		Hooks:  wire.Hooks{DefaultTimeoutMS: 2000, Subscribers: []wire.Subscriber{}},
		Policy: wire.Policy{Rules: append([]wire.PolicyRule{}, c.Rules...)},
		Model: wire.ModelSpec{Name: "fake-model", SupportsToolUse: true, SupportsParallelToolCalls: true,
			Pricing: wire.Pricing{Currency: "USD", Tiers: []wire.PricingTier{{InputPerMtok: 1, OutputPerMtok: 2}}}},
		Tools: policyTools,
	}
	res, err := k.Run(context.Background(), w, wire.RunParams{SessionID: session, Prompt: "Please act.", Config: cfg}, 20*time.Second)
	if err != nil {
		return nil, fmt.Errorf("the kernel faulted: %v", err)
	}
	return &policyRun{c: c, session: session, world: w, result: res}, nil
}

// check returns every broken rule of the policy fold.
func (r *policyRun) check() []string {
	var bad []string
	fail := func(format string, a ...any) { bad = append(bad, fmt.Sprintf(format, a...)) }
	reqs := r.world.Log.Select(func(e *calllog.Entry) bool { return e.Kind == calllog.Request && e.SessionID == r.session })
	var ids []string // call ids in message order, from the model's answer
	invoked, interacted, asked := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var models []wire.ModelStreamParams
	for _, e := range reqs {
		switch v := e.Value.(type) {
		case wire.ModelStreamParams:
			models = append(models, v)
			if len(ids) == 0 {
				var res wire.ModelStreamResult
				_ = json.Unmarshal(e.Result, &res)
				for _, ev := range res.Events {
					if ev.Type == wire.EventToolCall {
						ids = append(ids, ev.ID)
					}
				}
			}
		case wire.ToolInvokeParams:
			invoked[v.CallID] = true
		case wire.InteractiveParams:
			interacted[v.CallID] = true
		case wire.PermissionParams:
			for _, it := range v.Items {
				asked[it.ToolCallID] = true
			}
		}
	}
	if len(ids) != len(r.c.Calls) {
		return []string{fmt.Sprintf("the model emitted %d calls, the kernel saw %d", len(r.c.Calls), len(ids))}
	}
	rows, downgrades := map[string]wire.Event{}, map[string]bool{}
	for _, ev := range r.world.Events() {
		if ev.SessionID != r.session {
			continue
		}
		id, _ := ev.Payload["tool_call_id"].(string)
		switch ev.Kind {
		case wire.EventPlanItem:
			rows[id] = ev
		case wire.EventAskDowngrade:
			downgrades[id] = true
		}
	}
	results := map[string]wire.ContentBlock{}
	if len(models) >= 2 {
		for _, m := range models[1].Messages {
			for _, b := range m.Content {
				if b.Type == wire.BlockToolResult {
					results[b.ToolUseID] = b
				}
			}
		}
	} else {
		fail("the kernel made %d model request(s), expected 2", len(models))
	}
	for i, tool := range r.c.Calls {
		id, kind := ids[i], schemaOf(tool).Kind
		decision, rule, downgraded := decide(r.c.Rules, tool)
		runs := decision == wire.PolicyAllow || kind == wire.KindResource && decision == wire.PolicyAsk && r.c.Answers[tool] == wire.DecisionAllow
		switch kind {
		case wire.KindResource:
			row, ok := rows[id]
			switch {
			case !ok:
				fail("call %d (%s): no plan_item row", i+1, tool)
			case row.Payload["decision"] != decision:
				fail("call %d (%s): plan_item decision %v, the rules say %s (rule %q)", i+1, tool, row.Payload["decision"], decision, rule)
			case rule != "" && !strings.Contains(fmt.Sprint(row.Payload["decided_by"]), rule):
				fail("call %d (%s): decided_by %v does not name rule %q", i+1, tool, row.Payload["decided_by"], rule)
			}
			if asked[id] != (decision == wire.PolicyAsk) {
				fail("call %d (%s): asked the frontend %v, decision %s", i+1, tool, asked[id], decision)
			}
			if invoked[id] != runs {
				fail("call %d (%s): invoked %v, expected %v (decision %s, answer %s)", i+1, tool, invoked[id], runs, decision, r.c.Answers[tool])
			}
		case wire.KindDataSource, wire.KindInteractive:
			if _, ok := rows[id]; ok {
				fail("call %d (%s): a %s call got a plan_item row", i+1, tool, kind)
			}
			if asked[id] {
				fail("call %d (%s): a %s call was sent to the frontend for permission", i+1, tool, kind)
			}
			if ran := invoked[id] || interacted[id]; ran != runs {
				fail("call %d (%s): ran %v, decision %s (rule %q)", i+1, tool, ran, decision, rule)
			}
			if downgrades[id] != downgraded {
				fail("call %d (%s): ask_downgrade reported %v, expected %v", i+1, tool, downgrades[id], downgraded)
			}
		}
		if len(models) >= 2 {
			switch res, ok := results[id]; {
			case !ok:
				fail("call %d (%s): no tool_result in model request 2", i+1, tool)
			case !runs && !res.IsError:
				fail("call %d (%s): denied, but its tool_result is no error: %q", i+1, tool, res.Content)
			}
		}
	}
	if r.result.Status != wire.StatusCompleted {
		fail("the session ended %q (%s)", r.result.Status, r.result.Error)
	}
	return bad
}

func (c policyCase) String() string {
	var rs []string
	for _, r := range c.Rules {
		rs = append(rs, fmt.Sprintf("%s{provider=%q tool=%q kind=%q %s}", r.Name, r.Provider, r.Tool, r.Kind, r.Decision))
	}
	return fmt.Sprintf("rules [%s] calls %v answers %v", strings.Join(rs, " "), c.Calls, c.Answers)
}

// TestPolicyProperties runs random policies over one message of calls of
// every kind through the reference kernel and checks each call's fate
// against the spec's fold. More cases: -rapid.checks=N.
func TestPolicyProperties(t *testing.T) {
	k := startKernel(t)
	rapid.Check(t, func(t *rapid.T) {
		c := policyCases.Draw(t, "policy")
		r, err := runPolicyCase(k, c, fmt.Sprintf("policy-%d", sessions.Add(1)))
		if err != nil {
			t.Fatalf("%v\ncase: %s", err, c)
		}
		if bad := r.check(); len(bad) > 0 {
			t.Fatalf("case: %s\nbroken: %s", c, strings.Join(bad, "\n        "))
		}
	})
}

// TestPolicyFold pins the model the property checks against.
func TestPolicyFold(t *testing.T) {
	rules := []wire.PolicyRule{
		{Name: "reads-ask", Kind: wire.KindDataSource, Decision: wire.PolicyAsk},
		{Name: "alpha-ok", Provider: "alpha", Decision: wire.PolicyAllow},
	}
	for _, c := range []struct {
		tool, decision, rule string
		downgraded           bool
	}{
		{"look", wire.PolicyDeny, "reads-ask", true}, // first match wins, and an ask on a read is a deny
		{"put", wire.PolicyAllow, "alpha-ok", false},
		{"post", wire.PolicyAsk, "", false},      // no match: a resource asks
		{"confirm", wire.PolicyAllow, "", false}, // no match: an interactive call runs
	} {
		d, r, dg := decide(rules, c.tool)
		if d != c.decision || r != c.rule || dg != c.downgraded {
			t.Errorf("%s: got %s %q %v, want %s %q %v", c.tool, d, r, dg, c.decision, c.rule, c.downgraded)
		}
	}
}
