package loop

import (
	"context"
	"testing"
	"time"

	"github.com/agentconform/conform/refkernel/clock"
	"github.com/agentconform/conform/refkernel/ids"
	"github.com/agentconform/conform/refkernel/internal/fakehost"
	"github.com/agentconform/conform/spec/wire"
)

var epoch = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func baseConfig() wire.SessionConfig {
	return wire.SessionConfig{
		Profile:          "test",
		WorkingDirectory: "/work",
		Model: wire.ModelSpec{
			Name: "fake-model", SupportsToolUse: true, SupportsParallelToolCalls: true,
			Pricing: wire.Pricing{Currency: "USD", Free: true},
		},
		Tools: []wire.ToolSchema{
			{Provider: "fs", Name: "read", Kind: wire.KindDataSource, Risk: "read_only", Concurrency: &wire.ConcurrencySpec{Safe: true}},
			{Provider: "ui", Name: "ask", Kind: wire.KindInteractive, Risk: "read_only", Description: "ask the user"},
			{Provider: "fs", Name: "write", Kind: wire.KindResource, Risk: "low", Description: "write a file"},
		},
		Policy: wire.Policy{Rules: []wire.PolicyRule{{Name: "writes-ok", Tool: "write", Decision: "allow"}}},
	}
}

// observersEverywhere subscribes one observer at each generic point.
func observersEverywhere() wire.Hooks {
	h := wire.Hooks{DefaultTimeoutMS: 5000}
	for _, p := range wire.HookPoints {
		if p != wire.PointContextAssemble {
			h.Subscribers = append(h.Subscribers, wire.Subscriber{ID: "O", Point: p, Mode: wire.ModeObserve})
		}
	}
	// ids must be unique: suffix each with its point
	for i := range h.Subscribers {
		h.Subscribers[i].ID = "O-" + h.Subscribers[i].Point
	}
	return h
}

type runOpts struct {
	parts Parts
	clock clock.Clock
}

func run(t testing.TB, h *fakehost.Host, cfg wire.SessionConfig, o runOpts) wire.RunSessionResult {
	t.Helper()
	if o.clock == nil {
		o.clock = clock.NewManual(epoch)
	}
	s, err := NewSession(Setup{
		Parts: o.parts, Host: h, Clock: o.clock, IDs: ids.Sequence(),
		Params: wire.RunParams{SessionID: "s1", Prompt: "do the thing", Config: cfg},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s.Run(context.Background())
}

func count(log []string, entry string) int {
	n := 0
	for _, e := range log {
		if e == entry {
			n++
		}
	}
	return n
}

func ip(v int) *int         { return &v }
func fp(v float64) *float64 { return &v }
