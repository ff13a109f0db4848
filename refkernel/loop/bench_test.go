package loop

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentconform/conform/refkernel/clock"
	"github.com/agentconform/conform/refkernel/ids"
	"github.com/agentconform/conform/refkernel/internal/fakehost"
	"github.com/agentconform/conform/spec/wire"
)

// BenchmarkTurn measures the kernel's own overhead per turn, in process,
// against a Host that answers at once: each session is one turn with a tool
// call and one turn with a text answer.
func BenchmarkTurn(b *testing.B) {
	call := fakehost.Calls(fakehost.Call("c1", "read", `{"path":"a"}`))
	answer := fakehost.Text("done")
	h := &fakehost.Host{
		Quiet: true,
		OnModel: func(_ int, p wire.ModelStreamParams) (wire.ModelStreamResult, error) {
			if len(p.Messages) == 1 {
				return call, nil
			}
			return answer, nil
		},
		OnInvoke: func(context.Context, wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
			return wire.ToolInvokeResult{Output: json.RawMessage(`"ok"`)}, nil
		},
	}
	cfg := baseConfig()
	gen := ids.Sequence()
	clk := clock.NewManual(epoch)
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		s, err := NewSession(Setup{Host: h, Clock: clk, IDs: gen, Params: wire.RunParams{SessionID: "s", Prompt: "go", Config: cfg}})
		if err != nil {
			b.Fatal(err)
		}
		if res := s.Run(context.Background()); res.Status != wire.StatusCompleted {
			b.Fatalf("status %s", res.Status)
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(2*b.N), "ns/turn")
}
