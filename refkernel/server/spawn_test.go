package server

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/agentconform/conform/refkernel/internal/fakehost"
	"github.com/agentconform/conform/spec/wire"
)

// TestSpawnOverTheWire runs a child through session/spawn sent from inside
// the root's tool/invoke, and checks the refusals of bad spawns.
func TestSpawnOverTheWire(t *testing.T) {
	var (
		h      *harness
		mu     sync.Mutex
		counts = map[string]int{}
		child  wire.RunSessionResult
		codes  = map[string]int{}
	)
	fake := &fakehost.Host{
		OnModel: func(_ int, p wire.ModelStreamParams) (wire.ModelStreamResult, error) {
			mu.Lock()
			counts[p.CallContext.SessionID]++
			n := counts[p.CallContext.SessionID]
			mu.Unlock()
			if p.CallContext.SessionID == "root" && n == 1 {
				return fakehost.With(fakehost.Calls(fakehost.Call("c1", "spawn", `{}`)), fakehost.Usage(100, 10)), nil
			}
			return fakehost.With(fakehost.Text("done in "+p.CallContext.SessionID), fakehost.Usage(100, 10)), nil
		},
		OnInvoke: func(ctx context.Context, p wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
			spawn := func(sp wire.SpawnParams) (wire.RunSessionResult, error) {
				var res wire.RunSessionResult
				err := h.conn.Call(ctx, wire.MethodSessionSpawn, sp, &res)
				return res, err
			}
			base := wire.SpawnParams{ParentSessionID: p.CallContext.SessionID, CallID: p.CallID, Profile: "worker", Prompt: "work"}
			bad := map[string]wire.SpawnParams{}
			b := base
			b.CallID = "not-in-flight"
			bad["call id"] = b
			b = base
			b.Profile = "nobody"
			bad["profile"] = b
			b = base
			b.ParentSessionID = "elsewhere"
			bad["parent"] = b
			for what, sp := range bad {
				_, err := spawn(sp)
				mu.Lock()
				codes[what] = code(err)
				mu.Unlock()
			}
			res, err := spawn(base)
			if err != nil {
				return wire.ToolInvokeResult{}, err
			}
			mu.Lock()
			child = res
			mu.Unlock()
			out, _ := json.Marshal(res.Status)
			return wire.ToolInvokeResult{Output: out}, nil
		},
	}
	h = start(t, fake)
	h.init(t)
	cfg := config()
	cfg.Tools = append(cfg.Tools, wire.ToolSchema{Provider: "agents", Name: "spawn", Kind: wire.KindResource, Risk: "critical", SpawnCapable: true})
	cfg.Policy.Rules = []wire.PolicyRule{{Name: "spawn", Tool: "spawn", Decision: wire.PolicyAllow}}
	cfg.Subagents = &wire.Subagents{MaxConcurrent: 2, MaxDepth: 1, Profiles: []wire.ChildProfile{{Name: "worker", Tools: []string{"read"}}}}
	var res wire.RunSessionResult
	if err := h.call(t, wire.MethodSessionRun, wire.RunParams{SessionID: "root", Prompt: "go", Config: cfg}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != wire.StatusCompleted {
		t.Fatalf("root: %+v", res)
	}
	mu.Lock()
	defer mu.Unlock()
	if child.Status != wire.StatusCompleted || child.SessionID == "" || child.FinalMessage == nil {
		t.Fatalf("child result %+v", child)
	}
	want := map[string]int{"call id": wire.CodeInvalidParams, "profile": wire.CodeInvalidParams, "parent": wire.CodeUnknownSession}
	for what, c := range want {
		if codes[what] != c {
			t.Errorf("a spawn with a bad %s: code %d, want %d", what, codes[what], c)
		}
	}
	if res.TotalCostUSD <= child.TotalCostUSD || res.TotalInputTokens <= child.TotalInputTokens {
		t.Errorf("the root's totals (%v, %d) do not include the child's (%v, %d)", res.TotalCostUSD, res.TotalInputTokens, child.TotalCostUSD, child.TotalInputTokens)
	}
	var rows []wire.SessionMeta
	h.mu.Lock()
	for _, raw := range h.notes[wire.NotifySessionMeta] {
		rows = append(rows, decode[wire.SessionMeta](raw))
	}
	h.mu.Unlock()
	found := false
	for _, m := range rows {
		if m.SessionID == child.SessionID {
			found = true
			if m.ParentSessionID != "root" || m.Profile != "worker" || m.Depth != 1 || m.RemainingDepth == nil || *m.RemainingDepth != 0 {
				t.Errorf("child row %+v", m)
			}
		}
	}
	if !found {
		t.Errorf("no session_meta row for the child %s", child.SessionID)
	}
}
