package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/refkernel/internal/fakehost"
	"github.com/agentconform/conform/spec/wire"
)

func TestOutputSchemaEnforced(t *testing.T) {
	for _, tc := range []struct {
		out     string
		isError bool
	}{{`{"total":3}`, false}, {`{"total":"many"}`, true}, {`"nope"`, true}} {
		h := &fakehost.Host{
			OnModel: func(n int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) {
				if n == 1 {
					return fakehost.Calls(fakehost.Call("r", "read", `{}`)), nil
				}
				return fakehost.Text("ok"), nil
			},
			OnInvoke: func(context.Context, wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
				return wire.ToolInvokeResult{Output: json.RawMessage(tc.out)}, nil
			},
		}
		cfg := baseConfig()
		cfg.Tools[0].OutputSchema = map[string]any{"type": "object", "required": []any{"total"},
			"properties": map[string]any{"total": map[string]any{"type": "integer"}}}
		res := run(t, h, cfg, runOpts{})
		if res.Status != wire.StatusCompleted {
			t.Fatalf("%s: result %+v", tc.out, res)
		}
		b := h.Requests()[1].Messages[2].Content[0]
		if b.IsError != tc.isError || (tc.isError && b.ErrorCategory != wire.ToolErrUnknown) {
			t.Fatalf("%s: result block %+v", tc.out, b)
		}
	}
}

func TestBadOutputSchemaRefusesConfig(t *testing.T) {
	cfg := baseConfig()
	cfg.Tools[0].OutputSchema = map[string]any{"type": 7}
	if _, err := NewSession(Setup{Host: &fakehost.Host{}, Params: wire.RunParams{SessionID: "s", Config: cfg}}); err == nil {
		t.Fatal("a schema that does not compile was accepted")
	}
}

func TestCrashesTripTheBreaker(t *testing.T) {
	h := &fakehost.Host{
		OnModel: func(n int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) {
			return fakehost.Calls(fakehost.Call(fmt.Sprint("r", n), "read", fmt.Sprintf(`{"n":%d}`, n))), nil
		},
		OnInvoke: func(context.Context, wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
			return wire.ToolInvokeResult{}, &host.Error{Code: wire.CodeProcessCrashed, Message: "exit 1"}
		},
	}
	cfg := baseConfig()
	cfg.Bounds.MaxTurns = ip(10)
	cfg.Policy.CircuitBreaker = &wire.CircuitBreaker{Consecutive: 3}
	res := run(t, h, cfg, runOpts{})
	reqs := h.Requests()
	if len(reqs) != 4 || len(reqs[3].Tools) != 0 || res.Status == wire.StatusFailed {
		t.Fatalf("%d requests, last tools %v, result %+v", len(reqs), reqs[len(reqs)-1].Tools, res)
	}
	if ev := h.Events(wire.EventCircuitBreaker); len(ev) != 1 || ev[0].Payload["cause"] != "crashes" {
		t.Fatalf("circuit_breaker events %+v", ev)
	}
}

func TestToolRetriesOnlyWhereAllowed(t *testing.T) {
	for _, tc := range []struct {
		tool    string
		idem    bool
		invokes int32
	}{{"read", false, 3}, {"write", false, 1}, {"write", true, 3}} {
		var n atomic.Int32
		h := &fakehost.Host{
			OnModel: func(k int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) {
				if k == 1 {
					return fakehost.Calls(fakehost.Call("c", tc.tool, `{}`)), nil
				}
				return fakehost.Text("ok"), nil
			},
			OnInvoke: func(_ context.Context, p wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
				if got := n.Add(1); int32(p.Attempt) != got {
					t.Errorf("invoke %d has attempt %d", got, p.Attempt)
				}
				return wire.ToolInvokeResult{Output: json.RawMessage(`"busy"`), IsError: true, ErrorCategory: wire.ToolErrUnknown, Retryable: true}, nil
			},
		}
		cfg := baseConfig()
		cfg.Tools[2].Idempotent = tc.idem
		run(t, h, cfg, runOpts{})
		if n.Load() != tc.invokes {
			t.Errorf("%s (idempotent %v): %d invokes, want %d", tc.tool, tc.idem, n.Load(), tc.invokes)
		}
		if b := h.Requests()[1].Messages[2].Content[0]; !b.IsError {
			t.Errorf("%s: result %+v", tc.tool, b)
		}
	}
}

func TestContextOverflowNothingToShrinkFailsOnce(t *testing.T) {
	h := &fakehost.Host{OnModel: func(int, wire.ModelStreamParams) (wire.ModelStreamResult, error) {
		return wire.ModelStreamResult{Events: []wire.StreamEvent{{Type: wire.EventErrorSE, Error: &wire.ModelError{Category: wire.ModelErrContextLength, Message: "too long"}}}}, nil
	}}
	res := run(t, h, baseConfig(), runOpts{})
	if res.Status != wire.StatusFailed || len(h.Requests()) != 1 || count(h.Log(), "assemble") != 2 {
		t.Fatalf("result %+v, log %q", res, h.Log())
	}
}
