package steps

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/spec/wire"
)

// A kernel that announces no delay is not judged on its jitter by arrival
// times (they cannot show it): the jitter check is not reached, naming the
// clause, so ER-01 passes only partially. Before, it did not apply and
// ER-01 passed in full for a loop with no jitter at all.
func TestJitterUnannouncedIsNotReached(t *testing.T) {
	for name, payload := range map[string]string{
		"no retry event":           "",
		"retry event, no delay_ms": `{"attempt":1,"category":"rate_limited"}`,
	} {
		w := fakes.NewWorld()
		if payload != "" {
			ev, _ := json.Marshal(wire.Event{SessionID: "s", TurnID: "t1", Kind: wire.EventRetry, Producer: "kernel", Payload: map[string]any{}})
			ev = []byte(strings.Replace(string(ev), `"payload":{}`, `"payload":`+payload, 1))
			w.Notify(wire.NotifyEvent, ev)
		}
		s := &Scenario{World: w, SessionID: "s", ran: true, env: &Env{}}
		err := s.announcedJittered()
		var nr *notReachedError
		if !errors.As(err, &nr) || !strings.Contains(err.Error(), "jitter clause") {
			t.Errorf("%s: want not reached naming ER-01's jitter clause, got %v", name, err)
		}
		var na *notApplicableError
		if err := s.announcedWithinBounds(40, 2); !errors.As(err, &na) {
			t.Errorf("%s: the announced bounds do not apply without delay_ms (arrival times judge the waits), got %v", name, err)
		}
	}
}

// The slow scenario's schedule (base 4 s, twenty first retries) on
// synthetic waits: every jitter form from full jitter to none passes, and a
// loop that keeps a built-in 1 s base fails even when a loaded machine
// stalls two of its waits by seconds and every other one by 400 ms.
func TestBackoffBaseTakenFromSettings(t *testing.T) {
	const base = 4 * time.Second
	first := func(wait func(i int) time.Duration) []retrySample {
		var out []retrySample
		for i := range 20 {
			out = append(out, retrySample{req: 2*i + 2, k: 1, wait: wait(i)})
		}
		return out
	}
	forms := map[string][2]float64{"full": {0, 1}, "equal": {0.5, 1}, "none": {1, 1}}
	r := rand.New(rand.NewPCG(3, 4))
	for name, f := range forms {
		for i := range 1000 {
			xs := first(func(int) time.Duration { return time.Duration((f[0] + (f[1]-f[0])*r.Float64()) * float64(base)) })
			if err := backoffScenario(nil).judgeWaits(xs, base, 2); err != nil {
				t.Fatalf("%s jitter, session %d: blamed: %v", name, i, err)
			}
		}
	}
	fixed := first(func(i int) time.Duration {
		if i < 2 {
			return 5 * time.Second
		}
		return time.Second + 400*time.Millisecond
	})
	if err := backoffScenario(nil).judgeWaits(fixed, base, 2); err == nil {
		t.Error("a built-in 1 s base passed for a configured base of 4 s")
	}
}

// Twenty announced first retries of a kernel whose default base is 100 ms
// where 500 ms is shipped fail, with no arrival time to blur them; the
// reference's equal jitter at the shipped base passes, and a kernel that
// announces nothing is left to its arrival times.
func TestAnnouncedDelaysTakenTogether(t *testing.T) {
	world := func(delay func(i int) int) *Scenario {
		w := fakes.NewWorld()
		for i := range 20 {
			if delay == nil {
				break
			}
			ev, _ := json.Marshal(wire.Event{SessionID: "s", TurnID: fmt.Sprintf("t%d", i+1), Kind: wire.EventRetry, Producer: "kernel",
				Payload: map[string]any{"attempt": 1, "category": "rate_limited", "delay_ms": delay(i)}})
			w.Notify(wire.NotifyEvent, ev)
		}
		return &Scenario{World: w, SessionID: "s", ran: true, env: &Env{}}
	}
	r := rand.New(rand.NewPCG(5, 6))
	if err := world(func(int) int { return 50 + r.IntN(51) }).announcedTogether(500, 2); err == nil || !strings.Contains(err.Error(), "announce") {
		t.Errorf("a 100 ms base announced where 500 ms is shipped: want a failure naming the announced delays, got %v", err)
	}
	for i := range 200 {
		if err := world(func(int) int { return 250 + r.IntN(251) }).announcedTogether(500, 2); err != nil {
			t.Fatalf("run %d: equal jitter at the shipped base: %v", i, err)
		}
	}
	var na *notApplicableError
	if err := world(nil).announcedTogether(500, 2); !errors.As(err, &na) {
		t.Errorf("nothing announced: want not applicable (the arrival times judge), got %v", err)
	}
}
