package loop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/clock"
	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/refkernel/ids"
	"github.com/agentconform/conform/refkernel/internal/fakehost"
	"github.com/agentconform/conform/spec/wire"
)

// The turn shape of TA-01: one read, one interactive and one resource call
// in one reply, observers at every point, everything allowed.
func TestTurnOrder(t *testing.T) {
	h := &fakehost.Host{OnModel: func(n int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) {
		if n == 1 {
			return fakehost.Calls(
				fakehost.Call("c1", "read", `{"path":"a"}`),
				fakehost.Call("c2", "ask", `{"prompt":"ok?"}`),
				fakehost.Call("c3", "write", `{"path":"b"}`),
			), nil
		}
		return fakehost.Text("all done"), nil
	}}
	cfg := baseConfig()
	cfg.Hooks = observersEverywhere()
	res := run(t, h, cfg, runOpts{})

	want := []string{
		"hook session-start O-session-start",
		"assemble",
		"hook pre-model-call O-pre-model-call",
		"model turn",
		"hook post-model-response O-post-model-response",
		"hook pre-tool-call O-pre-tool-call",
		"hook pre-tool-call O-pre-tool-call",
		"hook pre-tool-call O-pre-tool-call",
		"invoke read", "invoke-end read",
		"interactive ask", "interactive-end ask",
		"hook plan-ready O-plan-ready",
		"invoke write", "invoke-end write",
		"hook post-tool-call O-post-tool-call",
		"hook post-tool-call O-post-tool-call",
		"hook post-tool-call O-post-tool-call",
		"hook post-apply O-post-apply",
		"assemble",
		"hook pre-model-call O-pre-model-call",
		"model turn",
		"hook post-model-response O-post-model-response",
		"hook session-end O-session-end",
	}
	if got := h.Log(); !slices.Equal(got, want) {
		t.Fatalf("call order:\n got %q\nwant %q", got, want)
	}
	if res.Status != wire.StatusCompleted || res.Turns != 2 || res.FinalMessage == nil || res.FinalMessage.Content[0].Text != "all done" {
		t.Fatalf("result %+v", res)
	}

	// The next request ends with the reply and one result per tool_use,
	// in tool_use order; the interactive answer is that call's result.
	reqs := h.Requests()
	msgs := reqs[1].Messages
	if len(msgs) != 3 || msgs[1].Role != "assistant" || msgs[2].Role != "user" {
		t.Fatalf("messages %+v", msgs)
	}
	var ids, contents []string
	for _, b := range msgs[2].Content {
		ids, contents = append(ids, b.ToolUseID), append(contents, b.Content)
	}
	if !slices.Equal(ids, []string{"c1", "c2", "c3"}) || contents[1] != "yes" {
		t.Fatalf("results %q %q", ids, contents)
	}
	// call_context on every model request: same session, a turn id per turn.
	if reqs[0].CallContext.SessionID != "s1" || reqs[0].CallContext.TurnID == reqs[1].CallContext.TurnID || reqs[0].CallContext.WorkingDirectory != "/work" {
		t.Fatalf("call contexts %+v %+v", reqs[0].CallContext, reqs[1].CallContext)
	}
	if reqs[0].Tools == nil || len(reqs[0].Tools) != 3 || reqs[0].Purpose != wire.PurposeTurn || reqs[0].AssembledContext == nil {
		t.Fatalf("first request %+v", reqs[0])
	}
	items := h.Events(wire.EventPlanItem)
	if len(items) != 1 || items[0].Payload["decision"] != "allow" || items[0].Payload["decided_by"] != "rule:writes-ok" {
		t.Fatalf("plan_item events %+v", items)
	}
	metas := h.Notes(wire.NotifySessionMeta)
	if len(metas) != 2 || metas[0].(wire.SessionMeta).Status != wire.StatusRunning ||
		metas[1].(wire.SessionMeta).Status != wire.StatusCompleted || metas[1].(wire.SessionMeta).EndedAt == "" {
		t.Fatalf("session_meta rows %+v", metas)
	}
}

// A reply without tool calls ends the session: nothing of steps 7-14 runs.
func TestImplicitDone(t *testing.T) {
	h := &fakehost.Host{}
	cfg := baseConfig()
	cfg.Hooks = observersEverywhere()
	res := run(t, h, cfg, runOpts{})
	want := []string{
		"hook session-start O-session-start", "assemble", "hook pre-model-call O-pre-model-call", "model turn",
		"hook post-model-response O-post-model-response", "hook session-end O-session-end",
	}
	if got := h.Log(); !slices.Equal(got, want) {
		t.Fatalf("log %q", got)
	}
	if res.Status != wire.StatusCompleted || res.Turns != 1 {
		t.Fatalf("result %+v", res)
	}
}

// max_turns = 3 with a model that never stops: three ordinary turns, one
// tool-less final-answer turn whose tool calls are ignored, error_max_turns.
func TestMaxTurnsFinalAnswer(t *testing.T) {
	h := &fakehost.Host{OnModel: func(n int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) {
		return fakehost.Calls(fakehost.Call(fmt.Sprint("c", n), "read", fmt.Sprintf(`{"q":%d}`, n))), nil
	}}
	cfg := baseConfig()
	cfg.Bounds.MaxTurns = ip(3)
	cfg.Hooks = observersEverywhere()
	res := run(t, h, cfg, runOpts{})

	reqs := h.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4", len(reqs))
	}
	last := reqs[3]
	if last.Tools == nil || len(last.Tools) != 0 || last.Purpose != wire.PurposeFinalAnswer {
		t.Fatalf("final request tools %v purpose %q", last.Tools, last.Purpose)
	}
	if b, _ := json.Marshal(last.Tools); string(b) != "[]" {
		t.Fatalf("tools encode as %s", b)
	}
	instr := last.Messages[len(last.Messages)-1]
	if instr.Role != "user" || !strings.Contains(instr.Content[0].Text, "limit") {
		t.Fatalf("last message %+v", instr)
	}
	// Earlier results are still there: prompt + 3 × (reply, results).
	if len(last.Messages) != 1+2*3+1 {
		t.Fatalf("%d messages", len(last.Messages))
	}
	log := h.Log()
	if n := count(log, "invoke read"); n != 3 {
		t.Fatalf("%d invokes; the final reply's call must not run", n)
	}
	if count(log, "hook session-start O-session-start") != 1 || count(log, "hook session-end O-session-end") != 1 {
		t.Fatalf("session hooks %q", log)
	}
	if res.Status != wire.StatusErrorMaxTurns || res.Turns != 4 {
		t.Fatalf("result %+v", res)
	}
	lim := h.Events(wire.EventLimitReached)
	if len(lim) != 1 || lim[0].Payload["bound"] != bounds.MaxTurns || lim[0].Payload["status"] != wire.StatusErrorMaxTurns {
		t.Fatalf("limit_reached %+v", lim)
	}
}

func TestDoomLoop(t *testing.T) {
	for _, threshold := range []int{3, 4} {
		t.Run(fmt.Sprint(threshold), func(t *testing.T) {
			h := &fakehost.Host{OnModel: func(n int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) {
				input := `{"path":"a","mode":"x"}`
				if n%2 == 0 {
					input = "{ \"mode\" : \"x\", \"path\" : \"a\" }"
				}
				return fakehost.Calls(fakehost.Call(fmt.Sprint("c", n), "read", input)), nil
			}}
			cfg := baseConfig()
			cfg.Bounds.MaxTurns = ip(10)
			cfg.DoomLoop = &wire.DoomLoop{Threshold: ip(threshold)}
			res := run(t, h, cfg, runOpts{})
			if res.Status != wire.StatusErrorMaxTurns || len(h.Requests()) != threshold+1 {
				t.Fatalf("status %s after %d requests", res.Status, len(h.Requests()))
			}
			if ev := h.Events(wire.EventDoomLoop); len(ev) != 1 || ev[0].Payload["count"] != threshold {
				t.Fatalf("doom_loop events %+v", ev)
			}
			if h.Requests()[threshold].Purpose != wire.PurposeFinalAnswer {
				t.Fatal("no final-answer turn")
			}
		})
	}
}

func TestTerminalTool(t *testing.T) {
	h := &fakehost.Host{OnModel: func(int, wire.ModelStreamParams) (wire.ModelStreamResult, error) {
		return fakehost.Calls(fakehost.Call("f", "finish", `{}`), fakehost.Call("l", "read", `{}`)), nil
	}}
	cfg := baseConfig()
	cfg.Tools = append(cfg.Tools, wire.ToolSchema{Provider: "done", Name: "finish", Kind: wire.KindResource, Risk: "low", TerminatesTurn: true})
	cfg.Policy.Rules = append(cfg.Policy.Rules, wire.PolicyRule{Tool: "finish", Decision: "allow"})
	cfg.Hooks = observersEverywhere()
	res := run(t, h, cfg, runOpts{})
	log := h.Log()
	if res.Status != wire.StatusCompleted || len(h.Requests()) != 1 {
		t.Fatalf("status %s, %d requests", res.Status, len(h.Requests()))
	}
	if count(log, "hook post-tool-call O-post-tool-call") != 2 || count(log, "hook post-apply O-post-apply") != 1 {
		t.Fatalf("log %q", log)
	}
}

func TestCostBound(t *testing.T) {
	h := &fakehost.Host{OnModel: func(n int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) {
		// 400k input tokens at $1/Mtok: $0.40 a turn.
		return fakehost.With(fakehost.Calls(fakehost.Call(fmt.Sprint("c", n), "read", fmt.Sprintf(`{"n":%d}`, n))), fakehost.Usage(400_000, 0)), nil
	}}
	cfg := baseConfig()
	cfg.Model.Pricing = wire.Pricing{Currency: "USD", Tiers: []wire.PricingTier{{InputPerMtok: 1, OutputPerMtok: 5}}}
	cfg.Bounds.MaxCostUSD = fp(1.0)
	res := run(t, h, cfg, runOpts{})
	if res.Status != wire.StatusErrorMaxBudgetUSD || len(h.Requests()) != 4 {
		t.Fatalf("status %s after %d requests", res.Status, len(h.Requests()))
	}
	costs := h.Notes(wire.NotifyCostUsage)
	if len(costs) != 4 {
		t.Fatalf("%d cost reports", len(costs))
	}
	c := costs[2].(wire.CostUsage)
	if diff := c.SessionTotalUSD - 1.2; diff > 1e-9 || diff < -1e-9 || c.TurnID != "turn-3" {
		t.Fatalf("third cost report %+v", c)
	}
	if res.TotalInputTokens != 1_600_000 || res.TotalCostUSD < 1.6-1e-9 {
		t.Fatalf("totals %+v", res)
	}
}

func TestWallClockBound(t *testing.T) {
	clk := clock.NewManual(epoch)
	h := &fakehost.Host{
		OnModel: func(n int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) {
			return fakehost.Calls(fakehost.Call(fmt.Sprint("c", n), "read", fmt.Sprintf(`{"n":%d}`, n))), nil
		},
		OnInvoke: func(context.Context, wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
			clk.Advance(1200 * time.Millisecond)
			return wire.ToolInvokeResult{Output: json.RawMessage(`"ok"`)}, nil
		},
	}
	cfg := baseConfig()
	cfg.Bounds.MaxWallClockS = fp(2)
	res := run(t, h, cfg, runOpts{clock: clk})
	if res.Status != wire.StatusErrorMaxWallClock || len(h.Requests()) != 3 {
		t.Fatalf("status %s after %d requests", res.Status, len(h.Requests()))
	}
}

func TestTransformAbortFailsSession(t *testing.T) {
	h := &fakehost.Host{OnHook: func(_ context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
		if p.Subscriber == "T" {
			return wire.HookDispatchResult{}, &host.Error{Code: wire.CodeHookFailed, Message: "nope"}
		}
		return fakehost.Agree(p), nil
	}}
	cfg := baseConfig()
	cfg.Hooks = observersEverywhere()
	cfg.Hooks.Subscribers = append([]wire.Subscriber{{ID: "T", Point: wire.PointPreModelCall, Mode: wire.ModeTransform}}, cfg.Hooks.Subscribers...)
	res := run(t, h, cfg, runOpts{})
	log := h.Log()
	if res.Status != wire.StatusFailed || res.Error == "" || len(h.Requests()) != 0 {
		t.Fatalf("result %+v, %d requests", res, len(h.Requests()))
	}
	if slices.Contains(log, "hook pre-model-call O-pre-model-call") || count(log, "hook session-end O-session-end") != 1 {
		t.Fatalf("log %q", log)
	}
	if ev := h.Events(wire.EventHookError); len(ev) != 1 || ev[0].Producer != "T" {
		t.Fatalf("hook_error %+v", ev)
	}
}

func TestPlanReadyVetoDeniesResources(t *testing.T) {
	h := &fakehost.Host{
		OnModel: func(n int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) {
			if n == 1 {
				return fakehost.Calls(fakehost.Call("r", "read", `{}`), fakehost.Call("w", "write", `{}`)), nil
			}
			return fakehost.Text("ok"), nil
		},
		OnHook: func(_ context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
			if p.Subscriber == "V" {
				return wire.HookDispatchResult{}, &host.Error{Code: wire.CodeProcessCrashed}
			}
			return fakehost.Agree(p), nil
		},
	}
	cfg := baseConfig()
	cfg.Hooks.Subscribers = []wire.Subscriber{{ID: "V", Point: wire.PointPlanReady, Mode: wire.ModeVeto, ThirdParty: true}}
	res := run(t, h, cfg, runOpts{})
	if res.Status != wire.StatusCompleted || slices.Contains(h.Log(), "invoke write") || !slices.Contains(h.Log(), "invoke read") {
		t.Fatalf("status %s, log %q", res.Status, h.Log())
	}
	results := h.Requests()[1].Messages[2].Content
	if !results[1].IsError || !strings.Contains(results[1].Content, "V") || results[0].IsError {
		t.Fatalf("results %+v", results)
	}
}

func TestAskAndDenialResult(t *testing.T) {
	h := &fakehost.Host{
		OnModel: func(n int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) {
			if n == 1 {
				return fakehost.Calls(fakehost.Call("w", "write", `{}`)), nil
			}
			return fakehost.Text("ok"), nil
		},
		OnPermission: func(p wire.PermissionParams) (wire.PermissionResult, error) {
			return wire.PermissionResult{Decisions: []wire.PlanDecision{{PlanItemID: p.Items[0].ID, Decision: wire.DecisionDeny}}}, nil
		},
	}
	cfg := baseConfig()
	cfg.Policy.Rules = nil // resource default: ask
	run(t, h, cfg, runOpts{})
	if !slices.Contains(h.Log(), "permission write") || slices.Contains(h.Log(), "invoke write") {
		t.Fatalf("log %q", h.Log())
	}
	r := h.Requests()[1].Messages[2].Content[0]
	if r.ToolUseID != "w" || !r.IsError || r.Content != "denied by the user" {
		t.Fatalf("denial %+v", r)
	}
}

func TestToolCrashIsAResult(t *testing.T) {
	h := &fakehost.Host{
		OnModel: func(n int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) {
			if n == 1 {
				return fakehost.Calls(fakehost.Call("r", "read", `{}`), fakehost.Call("x", "nosuch", `{}`)), nil
			}
			return fakehost.Text("ok"), nil
		},
		OnInvoke: func(context.Context, wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
			return wire.ToolInvokeResult{}, &host.Error{Code: wire.CodeProcessCrashed, Message: "exit 1"}
		},
	}
	res := run(t, h, baseConfig(), runOpts{})
	if res.Status != wire.StatusCompleted {
		t.Fatalf("result %+v", res)
	}
	results := h.Requests()[1].Messages[2].Content
	if results[0].ErrorCategory != wire.ToolErrProcessCrashed || !results[0].IsError {
		t.Fatalf("crash result %+v", results[0])
	}
	if !results[1].IsError || !strings.Contains(results[1].Content, "unknown tool") || count(h.Log(), "invoke nosuch") != 0 {
		t.Fatalf("unknown tool result %+v", results[1])
	}
}

func TestModelErrorFails(t *testing.T) {
	h := &fakehost.Host{OnModel: func(int, wire.ModelStreamParams) (wire.ModelStreamResult, error) {
		return wire.ModelStreamResult{Events: []wire.StreamEvent{{Type: wire.EventErrorSE, Error: &wire.ModelError{Category: wire.ModelErrAuth, Message: "bad key"}}}}, nil
	}}
	res := run(t, h, baseConfig(), runOpts{})
	if res.Status != wire.StatusFailed || len(h.Requests()) != 1 {
		t.Fatalf("result %+v", res)
	}
	if ev := h.Events(wire.EventModelError); len(ev) != 1 || ev[0].Payload["category"] != wire.ModelErrAuth {
		t.Fatalf("model_error %+v", ev)
	}
}

func TestConfigRejectedBeforeAnything(t *testing.T) {
	cfg := baseConfig()
	cfg.Hooks.Subscribers = []wire.Subscriber{{ID: "fh", Point: wire.PointPreModelCall, Mode: wire.ModeObserve, SupportedPoints: []string{wire.PointPostToolCall}}}
	h := &fakehost.Host{}
	_, err := NewSession(Setup{Host: h, Params: wire.RunParams{SessionID: "s", Config: cfg}})
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(ce.Reason, "fh") {
		t.Fatalf("err = %v", err)
	}
	bad := baseConfig()
	bad.Model.Pricing = wire.Pricing{Currency: "USD"}
	if _, err := NewSession(Setup{Host: h, Params: wire.RunParams{SessionID: "s", Config: bad}}); !errors.As(err, &ce) {
		t.Fatalf("tierless pricing: %v", err)
	}
}

func TestStepOrderIsAPart(t *testing.T) {
	// Apply before reads: the harness-visible order changes, which is what
	// a mutant relies on.
	h := &fakehost.Host{OnModel: func(n int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) {
		if n == 1 {
			return fakehost.Calls(fakehost.Call("r", "read", `{}`), fakehost.Call("w", "write", `{}`)), nil
		}
		return fakehost.Text("ok"), nil
	}}
	steps := Move(DefaultSteps(), StepDataSources, StepPostToolCall)
	run(t, h, baseConfig(), runOpts{parts: Parts{Steps: steps}})
	log := h.Log()
	if slices.Index(log, "invoke write") > slices.Index(log, "invoke read") {
		t.Fatalf("mutant order not applied: %q", log)
	}
}

func TestSpans(t *testing.T) {
	h := &fakehost.Host{OnModel: func(n int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) {
		if n == 1 {
			return fakehost.Calls(fakehost.Call("r", "read", `{}`), fakehost.Call("a", "ask", `{}`), fakehost.Call("w", "write", `{}`)), nil
		}
		return fakehost.Text("ok"), nil
	}}
	cfg := baseConfig()
	cfg.Telemetry = true
	cfg.Hooks = observersEverywhere()
	run(t, h, cfg, runOpts{})
	spans := h.Spans()
	byRole := map[string][]wire.Span{}
	byID := map[string]wire.Span{}
	for _, s := range spans {
		byRole[s.Role] = append(byRole[s.Role], s)
		byID[s.SpanID] = s
	}
	if len(byRole[wire.RoleSession]) != 1 || len(byRole[wire.RoleTurn]) != 2 || len(byRole[wire.RoleModelCall]) != 2 ||
		len(byRole[wire.RoleToolExec]) != 3 || len(byRole[wire.RolePolicyChain]) != 1 {
		counts := map[string]int{}
		for r, ss := range byRole {
			counts[r] = len(ss)
		}
		t.Fatalf("span counts %v", counts)
	}
	session := byRole[wire.RoleSession][0]
	for _, s := range spans {
		if s.SessionID != "s1" {
			t.Errorf("span %s without session id", s.Name)
		}
		parent := byID[s.ParentSpanID]
		switch s.Role {
		case wire.RoleTurn:
			if s.ParentSpanID != session.SpanID {
				t.Errorf("turn span parent %q", parent.Role)
			}
		case wire.RoleModelCall, wire.RoleToolExec, wire.RolePolicyChain:
			if parent.Role != wire.RoleTurn || s.TurnID == "" || parent.TurnID != s.TurnID {
				t.Errorf("%s span parent %q", s.Role, parent.Role)
			}
		case wire.RoleHookDispatch:
			if parent.Role != wire.RoleTurn && parent.Role != wire.RoleSession {
				t.Errorf("hook_dispatch parent %q", parent.Role)
			}
		case wire.RoleHookSubscribe:
			if parent.Role != wire.RoleHookDispatch {
				t.Errorf("hook_subscriber parent %q", parent.Role)
			}
		}
	}
	// The session span is the last thing sent, and no event carries an id.
	if spans[len(spans)-1].Role != wire.RoleSession {
		t.Error("session span not last")
	}
	for _, e := range h.Events("") {
		b, _ := json.Marshal(e)
		if strings.Contains(string(b), session.TraceID) {
			t.Fatalf("trace id leaked into %s", b)
		}
	}
}

func TestIDsAreInjected(t *testing.T) {
	h := &fakehost.Host{}
	s, err := NewSession(Setup{Host: h, IDs: ids.Sequence(), Clock: clock.NewManual(epoch),
		Params: wire.RunParams{SessionID: "s", Config: baseConfig()}})
	if err != nil {
		t.Fatal(err)
	}
	s.Run(context.Background())
	if got := h.Requests()[0].CallContext.TurnID; got != "turn-1" {
		t.Fatalf("turn id %q", got)
	}
	if m := h.Notes(wire.NotifySessionMeta)[0].(wire.SessionMeta); m.StartedAt != "2030-01-01T00:00:00Z" {
		t.Fatalf("started_at %q", m.StartedAt)
	}
}

// Three safe reads in one reply run together: each waits until all three
// have started, which a serializing kernel never gets past. Two interactive
// calls in the same reply never overlap.
func TestReadsOverlapInteractiveDoNot(t *testing.T) {
	all := make(chan struct{})
	arrived := make(chan struct{}, 3)
	go func() {
		for range 3 {
			<-arrived
		}
		close(all)
	}()
	inFlight, maxInFlight := 0, 0
	h := &fakehost.Host{
		OnModel: func(n int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) {
			if n == 1 {
				return fakehost.Calls(
					fakehost.Call("r1", "read", `{"p":1}`), fakehost.Call("r2", "read", `{"p":2}`), fakehost.Call("r3", "read", `{"p":3}`),
					fakehost.Call("a1", "ask", `{}`), fakehost.Call("a2", "ask", `{}`),
				), nil
			}
			return fakehost.Text("ok"), nil
		},
		OnInvoke: func(ctx context.Context, _ wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
			arrived <- struct{}{}
			select {
			case <-all:
				return wire.ToolInvokeResult{Output: json.RawMessage(`"ok"`)}, nil
			case <-time.After(5 * time.Second):
				return wire.ToolInvokeResult{}, errors.New("reads did not overlap")
			}
		},
		OnInteractive: func(context.Context, wire.InteractiveParams) (wire.InteractiveResult, error) {
			// Interactive calls run on the loop goroutine one by one, so
			// this unsynchronized counter is only safe if they never overlap
			// (the race detector would say so).
			inFlight++
			maxInFlight = max(maxInFlight, inFlight)
			inFlight--
			return wire.InteractiveResult{Response: "yes"}, nil
		},
	}
	run(t, h, baseConfig(), runOpts{})
	for _, b := range h.Requests()[1].Messages[2].Content[:3] {
		if b.IsError {
			t.Fatalf("read result %+v", b)
		}
	}
	var inter []string
	for _, e := range h.Log() {
		if strings.HasPrefix(e, "interactive") {
			inter = append(inter, e)
		}
	}
	if !slices.Equal(inter, []string{"interactive ask", "interactive-end ask", "interactive ask", "interactive-end ask"}) || maxInFlight != 1 {
		t.Fatalf("interactive calls overlapped: %q", inter)
	}
}
