package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentconform/conform/refkernel/clock"
	"github.com/agentconform/conform/refkernel/ids"
	"github.com/agentconform/conform/refkernel/internal/fakehost"
	"github.com/agentconform/conform/spec/wire"
)

// BenchmarkLimitChecks measures steps 16 and 17 (doom loop, model check and
// bounds) of one turn of a session that has already run turn-1 turns. The
// work must not grow with the session: the doom-loop state is bounded by
// window_size and the model check's window, the bounds compare running
// totals. Compare turn=10 with turn=10000.
func BenchmarkLimitChecks(b *testing.B) {
	for _, check := range []int{0, 50} {
		for _, turn := range []int{10, 10000} {
			b.Run(fmt.Sprintf("model_check_window=%d/turn=%d", check, turn), func(b *testing.B) {
				benchLimitChecks(b, turn, check)
			})
		}
	}
}

func benchLimitChecks(b *testing.B, turn, window int) {
	h := &fakehost.Host{Quiet: true, OnModel: func(int, wire.ModelStreamParams) (wire.ModelStreamResult, error) {
		return fakehost.Text(`{"looping": false, "confidence": 0.9}`), nil
	}}
	cfg := baseConfig()
	big := 1 << 30
	cfg.Bounds = wire.Bounds{MaxTurns: &big, MaxCostUSD: fp(1e9), MaxWallClockS: fp(1e9)}
	cfg.DoomLoop = &wire.DoomLoop{Threshold: ip(5), WindowSize: ip(20), ModelCheckWindow: window}
	s, err := NewSession(Setup{Host: h, Clock: clock.NewManual(epoch), IDs: ids.Sequence(),
		Params: wire.RunParams{SessionID: "s", Prompt: "go", Config: cfg}})
	if err != nil {
		b.Fatal(err)
	}
	s.started = epoch
	ctx := context.Background()
	step := func(i int) {
		t := s.newTurn(ctx, nil)
		in, _ := json.Marshal(map[string]any{"path": fmt.Sprint("f", i%7), "page": i})
		t.Message = wire.Message{Role: "assistant", Content: []wire.ContentBlock{
			{Type: wire.BlockToolUse, ID: "c1", Name: "read", Input: in},
			{Type: wire.BlockToolUse, ID: "c2", Name: "write", Input: in},
		}}
		if err := stepDoomLoop(t); err != nil {
			b.Fatal(err)
		}
		if err := stepBounds(t); err != nil {
			b.Fatal(err)
		}
		if t.Fired != nil {
			b.Fatalf("fired %+v at turn %d", *t.Fired, s.turns)
		}
	}
	for i := 1; i < turn; i++ {
		s.turns = i
		step(i)
	}
	b.ReportAllocs()
	i := turn
	for b.Loop() {
		s.turns = turn // every iteration is turn number `turn`
		step(i)
		i++
	}
}
