package hooks

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentconform/conform/refkernel/trace"
	"github.com/agentconform/conform/spec/wire"
)

// instantHost answers every subscriber at once with the default answer of
// its mode, so the benchmark measures the dispatcher alone: ordering,
// deadlines, the transform check, spans and goroutines for observer runs.
type instantHost struct{}

func (instantHost) Hook(_ context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
	switch p.Mode {
	case wire.ModeTransform:
		next := p.Payload
		return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &next}, nil
	case wire.ModeVeto:
		return wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionAllow}, nil
	}
	return wire.HookDispatchResult{Outcome: wire.OutcomeAck}, nil
}

func (instantHost) Notify(string, any) {}

// BenchmarkDispatch reports the dispatcher's overhead per subscriber
// (metric ns/subscriber) for chains of 8 subscribers of one mode and a
// mixed chain, at pre-model-call with a ten-message payload.
func BenchmarkDispatch(b *testing.B) {
	msgs := make([]wire.Message, 10)
	for i := range msgs {
		msgs[i] = wire.Message{Role: "user", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: fmt.Sprintf("message %d with some text in it", i)}}}
	}
	payload := wire.HookPayload{Model: "m", Messages: msgs, Tools: []wire.ToolSpec{{Name: "read", Description: "Read a file"}}}
	chains := map[string][]string{
		"observe":   {"o", "o", "o", "o", "o", "o", "o", "o"},
		"transform": {"t", "t", "t", "t", "t", "t", "t", "t"},
		"veto":      {"v", "v", "v", "v", "v", "v", "v", "v"},
		"mixed":     {"t", "o", "v", "o", "o", "t", "v", "o"},
	}
	modes := map[string]string{"o": wire.ModeObserve, "t": wire.ModeTransform, "v": wire.ModeVeto}
	for _, name := range []string{"observe", "transform", "veto", "mixed"} {
		var subs []wire.Subscriber
		for i, m := range chains[name] {
			subs = append(subs, wire.Subscriber{ID: fmt.Sprintf("%s%d", m, i), Point: wire.PointPreModelCall, Mode: modes[m]})
		}
		req := Request{
			Point: wire.PointPreModelCall, Payload: payload,
			CallContext: wire.CallContext{SessionID: "s", TurnID: "t"},
			Hooks:       wire.Hooks{DefaultTimeoutMS: 1000, Subscribers: subs},
		}
		env := Env{Host: instantHost{}, Tracer: trace.Noop{}}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := (Standard{}).Dispatch(context.Background(), env, req); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(subs)), "ns/subscriber")
		})
	}
}
