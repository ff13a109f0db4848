package loop

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agentconform/conform/refkernel/clock"
	"github.com/agentconform/conform/refkernel/ids"
	"github.com/agentconform/conform/refkernel/internal/fakehost"
	"github.com/agentconform/conform/spec/wire"
)

// callEvery answers every turn request with a read whose argument changes,
// and loop checks with the given answer.
func callEvery(check string) *fakehost.Host {
	return &fakehost.Host{OnModel: func(n int, p wire.ModelStreamParams) (wire.ModelStreamResult, error) {
		if p.Purpose == wire.PurposeLoopCheck {
			return fakehost.Text(check), nil
		}
		return fakehost.With(fakehost.Calls(fakehost.Call(fmt.Sprint("c", n), "read", fmt.Sprintf(`{"path":"p%d"}`, n))), fakehost.Usage(1000, 10)), nil
	}}
}

func purposes(h *fakehost.Host) map[string]int {
	out := map[string]int{}
	for _, r := range h.Requests() {
		out[r.Purpose]++
	}
	return out
}

// TA-09: a soft bound pauses; Continue resumes with the user's message and
// a fresh allowance; Continue of a session that is not paused is refused.
func TestSoftLimitPauseAndContinue(t *testing.T) {
	h := callEvery("")
	cfg := baseConfig()
	cfg.Bounds = wire.Bounds{MaxTurns: ip(2), Soft: true}
	s, err := NewSession(Setup{Host: h, Clock: clock.NewManual(epoch), IDs: ids.Sequence(),
		Params: wire.RunParams{SessionID: "s1", Prompt: "go", Config: cfg}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Continue("too early"); err != ErrNotPaused {
		t.Fatalf("continue before a pause: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan wire.RunSessionResult, 1)
	go func() { done <- s.Run(ctx) }()
	for pauses := 1; pauses <= 2; pauses++ {
		deadline := time.Now().Add(10 * time.Second)
		for len(h.Events(wire.EventLimitReached)) < pauses {
			if time.Now().After(deadline) {
				t.Fatalf("pause %d never came", pauses)
			}
			time.Sleep(time.Millisecond) // waits for the pause; orders nothing
		}
		ev := h.Events(wire.EventLimitReached)[pauses-1]
		if ev.Payload["soft"] != true || ev.Payload["bound"] != "max_turns" {
			t.Fatalf("event %+v", ev)
		}
		if got := purposes(h)[wire.PurposeTurn]; got != 2*pauses {
			t.Fatalf("pause %d after %d turn requests", pauses, got)
		}
		for s.Continue(fmt.Sprint("continue ", pauses)) == ErrNotPaused {
			time.Sleep(time.Millisecond) // the event is sent just before the wait starts
		}
	}
	cancel()
	res := <-done
	if res.Status != wire.StatusCancelled {
		t.Fatalf("status %s", res.Status)
	}
	last := h.Requests()[len(h.Requests())-1]
	var notice, user bool
	for _, m := range last.Messages {
		for _, c := range m.Content {
			notice = notice || (m.Role == "system" && c.Text != "")
			user = user || (m.Role == "user" && c.Text == "continue 1")
		}
	}
	if !notice || !user || len(last.Tools) == 0 {
		t.Fatalf("the resumed request lacks the notice, the continuation or its tools: %+v", last.Messages)
	}
}

// TA-22: without bounds.soft the same bound ends the session.
func TestHardByDefault(t *testing.T) {
	h := callEvery("")
	cfg := baseConfig()
	cfg.Bounds = wire.Bounds{MaxTurns: ip(2)}
	if res := run(t, h, cfg, runOpts{}); res.Status != wire.StatusErrorMaxTurns || res.Turns != 3 {
		t.Fatalf("result %+v", res)
	}
}

// TA-05: the weighted-token budget fires as the cost bound and every report
// carries its weighted tokens.
func TestWeightedTokens(t *testing.T) {
	h := callEvery("")
	cfg := baseConfig()
	cfg.Bounds = wire.Bounds{MaxTurns: ip(50), Weights: &wire.TokenWeights{SamplingTokenWeight: 2, PrefillTokenWeight: 0.5, MaxWeightedTokens: 1500}}
	res := run(t, h, cfg, runOpts{})
	// 10*2 + 1000*0.5 = 520 per reply: 1040 after two turns, 1560 after three.
	if res.Status != wire.StatusErrorMaxBudgetUSD || res.Turns != 4 {
		t.Fatalf("result %+v", res)
	}
	for _, n := range h.Notes(wire.NotifyCostUsage) {
		if c := n.(wire.CostUsage); c.WeightedTokens == nil || *c.WeightedTokens != 520 {
			t.Fatalf("report %+v", c)
		}
	}
}

// TA-13: every window calls the kernel asks the model; a confident yes takes
// the limit path, a no or an unsure yes does not, and the check's tokens
// are priced.
func TestModelCheck(t *testing.T) {
	for _, c := range []struct {
		answer string
		status string
		turns  int
	}{
		{`{"looping": true, "confidence": 0.95}`, wire.StatusErrorMaxTurns, 4},
		{`Verdict: {"looping": false, "confidence": 0.99}`, wire.StatusErrorMaxTurns, 7},
		{`{"looping": true, "confidence": 0.5}`, wire.StatusErrorMaxTurns, 7},
		{`yes, clearly looping`, wire.StatusErrorMaxTurns, 7},
	} {
		h := callEvery(c.answer)
		cfg := baseConfig()
		cfg.Bounds = wire.Bounds{MaxTurns: ip(6)}
		cfg.DoomLoop = &wire.DoomLoop{ModelCheckWindow: 3}
		res := run(t, h, cfg, runOpts{})
		if res.Status != c.status || res.Turns != c.turns {
			t.Errorf("%s: result %+v", c.answer, res)
		}
		checks := purposes(h)[wire.PurposeLoopCheck]
		if want := (c.turns - 1) / 3; checks != want {
			t.Errorf("%s: %d loop checks, want %d", c.answer, checks, want)
		}
		for _, r := range h.Requests() {
			if r.Purpose == wire.PurposeLoopCheck && (len(r.Tools) != 0 || len(r.Messages) != 1) {
				t.Errorf("loop check request %+v", r)
			}
		}
	}
}
