package steps

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

// The backoff check on synthetic waits, free of machine noise: a kernel
// whose waits are drawn from any jitter between full jitter and none passes
// (the check's chance of blaming one is 1e-6), and the broken backoffs of the
// mutants fail, whatever the kernel declares. The wait schedule is the one
// of the twelve-calls scenario (base 40 ms, factor 10, two retries each).

const (
	tBase   = 40 * time.Millisecond
	tFactor = 10.0
	tCalls  = 12
)

func backoffScenario(readings map[string]string) *Scenario {
	return &Scenario{env: &Env{Info: wire.InitializeResult{Readings: readings}}, ran: true}
}

// samples draws the waits of tCalls calls retried twice; wait(k, nominal)
// is the kernel's wait before retry k.
func samples(wait func(k int, nominal time.Duration) time.Duration) []retrySample {
	var out []retrySample
	for c := range tCalls {
		for k := 1; k <= 2; k++ {
			out = append(out, retrySample{req: 3*c + k + 1, k: k, wait: wait(k, nominalDelay(tBase, tFactor, k))})
		}
	}
	return out
}

// The check is statistical: a conforming kernel is blamed with a chance of
// 1e-6 per check. Over a thousand seeded sessions of every common
// jitter form, from full jitter to none, none is blamed.
func TestBackoffPassesEveryJitter(t *testing.T) {
	forms := map[string][2]float64{"full": {0, 1}, "equal": {0.5, 1}, "plus-minus-half": {0.5, 1.5}, "narrow": {0.75, 1}, "none": {1, 1}}
	r := rand.New(rand.NewPCG(1, 2))
	for name, f := range forms {
		for i := range 1000 {
			xs := samples(func(_ int, n time.Duration) time.Duration {
				u := f[0] + (f[1]-f[0])*r.Float64()
				return time.Duration(u*float64(n)) + time.Duration(r.Int64N(int64(20*time.Millisecond)))
			})
			if err := backoffScenario(nil).judgeWaits(xs, tBase, tFactor); err != nil {
				t.Fatalf("%s jitter, session %d: a conforming backoff was blamed: %v", name, i, err)
			}
		}
	}
}

func TestBackoffCatchesBrokenBackoffs(t *testing.T) {
	// On the twelve-calls schedule: no wait, or the base delay every time.
	broken := map[string]func(k int, n time.Duration) time.Duration{
		"no wait":        func(int, time.Duration) time.Duration { return time.Millisecond },
		"constant delay": func(int, time.Duration) time.Duration { return tBase + 30*time.Millisecond },
	}
	// On the shipped-default schedule (twenty first retries, base 500 ms):
	// a base of a fifth, with two stalls of 400 ms.
	const def = 500 * time.Millisecond
	fifth := make([]retrySample, 20)
	for i := range fifth {
		fifth[i] = retrySample{req: 2*i + 2, k: 1, wait: def/5 + 10*time.Millisecond}
	}
	fifth[3].wait, fifth[11].wait = 400*time.Millisecond, 400*time.Millisecond
	for _, readings := range []map[string]string{nil, {"retry.jitter_min_ratio": "0"}, {"retry.jitter_min_ratio": "0.5"}} {
		var errs []error
		for _, wait := range broken {
			errs = append(errs, backoffScenario(readings).judgeWaits(samples(wait), tBase, tFactor))
		}
		errs = append(errs, backoffScenario(readings).judgeWaits(fifth, def, 2))
		for i, err := range errs {
			var nr *notReachedError
			if err == nil || errors.As(err, &nr) {
				t.Errorf("broken backoff %d with readings %v: passed (%v)", i, readings, err)
			}
		}
	}
}

func TestBackoffCeilingAndDeclaredFloor(t *testing.T) {
	// A wait far past its upper bound fails at the ceiling.
	slow := samples(func(int, time.Duration) time.Duration { return 6 * time.Second })
	if err := backoffScenario(nil).judgeWaits(slow, tBase, tFactor); err == nil {
		t.Error("a 6 s wait against a 40 ms base passed")
	}
	// A declared added delay moves floor and ceiling up.
	added := map[string]string{"retry.added_delay_ms": "2000"}
	late := samples(func(_ int, n time.Duration) time.Duration { return 2*time.Second + n*3/4 })
	if err := backoffScenario(added).judgeWaits(late, tBase, tFactor); err != nil {
		t.Errorf("a declared 2 s added delay was blamed: %v", err)
	}
	early := samples(func(_ int, n time.Duration) time.Duration { return n })
	if err := backoffScenario(added).judgeWaits(early, tBase, tFactor); err == nil {
		t.Error("waits without the declared 2 s added delay passed")
	}
	// A declared floor holds every wait to it.
	half := map[string]string{"retry.jitter_min_ratio": "0.5"}
	one := samples(func(k int, n time.Duration) time.Duration {
		if k == 2 {
			return n / 4
		}
		return n
	})
	if err := backoffScenario(half).judgeWaits(one, tBase, tFactor); err == nil {
		t.Error("waits below the declared floor of half the nominal delay passed")
	}
}

// The thresholds of the statistical test: with m = 0 it is α^(1/n); with
// m = 2 of 20 waits the binomial tail at t is α.
func TestFewLongWaits(t *testing.T) {
	if got, want := fewLongWaits(12, 0, 1e-6), math.Pow(1e-6, 1.0/12); math.Abs(got-want) > 1e-9 {
		t.Errorf("fewLongWaits(12, 0) = %v, want %v", got, want)
	}
	x := fewLongWaits(20, 2, 1e-6)
	tail := math.Pow(x, 20) + 20*(1-x)*math.Pow(x, 19) + 190*(1-x)*(1-x)*math.Pow(x, 18)
	if math.Abs(tail-1e-6) > 1e-9 || x < 0.3 || x > 0.4 {
		t.Errorf("fewLongWaits(20, 2) = %v, tail %v", x, tail)
	}
}

// A retry a busy machine delayed past its ceiling is not the kernel's
// failure: what a busy machine took out of the time after the ceiling (the
// harness not running, the kernel queued for a CPU) is not counted against
// it (the ai-sdk framework's 10 ms retry came 6.2 s late at load 25). The
// floor still counts it, and a kernel that sleeps is charged in full, what
// a busy machine took before the ceiling included (an 8 s retry passed a
// 5.3 s ceiling at load 15, credited the harness's busiest thread's queue
// wait since the error answer).
func TestBackoffCeilingDiscountsWaitingForACPU(t *testing.T) {
	t0 := time.Unix(1000, 0)
	late := func(rec *starveRecord, arrivalWait time.Duration) error {
		xs := samples(func(_ int, n time.Duration) time.Duration { return n })
		xs[5].wait += 6 * time.Second
		xs[5].answered, xs[5].arrival, xs[5].arrivalWait = t0, t0.Add(xs[5].wait), arrivalWait
		s := backoffScenario(nil)
		s.starve = rec
		return s.judgeWaits(xs, tBase, tFactor)
	}
	// ticks every period from t0 to t0+7s, the kernel's clock at w(at).
	ticking := func(skip func(at time.Time) bool, w func(at time.Time) time.Duration) *starveRecord {
		r := newStarveRecord(watchPeriod)
		for at := t0; at.Before(t0.Add(7 * time.Second)); at = at.Add(watchPeriod) {
			if !skip(at) {
				r.tick(at, func() time.Duration { return w(at) })
			}
		}
		return r
	}
	never := func(time.Time) bool { return false }
	still := func(time.Time) time.Duration { return 3 * time.Second }
	kernelQueued := func(at time.Time) time.Duration { return 3*time.Second + max(0, at.Sub(t0.Add(time.Second))) }
	harnessIdle := func(at time.Time) bool {
		return at.After(t0.Add(time.Second)) && at.Before(t0.Add(6500*time.Millisecond))
	}
	if err := late(ticking(never, kernelQueued), kernelQueued(t0.Add(7*time.Second))); err != nil {
		t.Errorf("a retry 6 s late, the kernel queued for a CPU past its ceiling, was blamed: %v", err)
	}
	if err := late(ticking(harnessIdle, still), 3*time.Second); err != nil {
		t.Errorf("a retry 6 s late while the harness did not run was blamed: %v", err)
	}
	if err := late(ticking(never, still), 3*time.Second); err == nil {
		t.Error("a retry that slept 6 s past its 40 ms nominal delay passed")
	}
	if err := late(nil, 9*time.Second); err == nil {
		t.Error("a retry 6 s late passed without a watcher's record")
	}
	busyBefore := ticking(func(at time.Time) bool { return at.Before(t0.Add(300 * time.Millisecond)) }, still)
	if err := late(busyBefore, 3*time.Second); err == nil {
		t.Error("a retry 6 s late was credited the harness's idle time before its ceiling")
	}
	queuedEarly := func(at time.Time) time.Duration { return 3*time.Second + 65*min(at.Sub(t0), 100*time.Millisecond) }
	if err := late(ticking(never, queuedEarly), queuedEarly(t0.Add(7*time.Second))); err == nil {
		t.Error("a retry 6 s late was credited the CPU wait accrued before its ceiling")
	}
}

// credit counts the harness's idle time and the kernel's queue wait after
// the ceiling, at most the time after it, and nothing before it.
func TestStarveRecordCredit(t *testing.T) {
	t0 := time.Unix(1000, 0)
	r := newStarveRecord(watchPeriod)
	for _, ms := range []int{0, 20, 40, 60, 80, 100, 500, 520, 540} {
		r.tick(t0.Add(time.Duration(ms)*time.Millisecond), func() time.Duration { return time.Duration(ms) * time.Millisecond / 2 })
	}
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	for _, c := range []struct {
		ceiling, arrival int
		wait             time.Duration
		want             time.Duration
	}{
		{ceiling: 50, arrival: 40, wait: time.Second, want: 0},
		{ceiling: 50, arrival: 90, wait: 0, want: 0},                                           // no idle span, the clock went nowhere
		{ceiling: 50, arrival: 110, wait: 80 * time.Millisecond, want: 30 * time.Millisecond},  // the clock from its sample at 100 ms
		{ceiling: 50, arrival: 110, wait: 200 * time.Millisecond, want: 60 * time.Millisecond}, // capped at the time past the ceiling
		{ceiling: 200, arrival: 510, wait: 0, want: 300 * time.Millisecond},                    // the idle span 120..500 from the ceiling on
		{ceiling: 530, arrival: 700, wait: 0, want: 140 * time.Millisecond},                    // after the last tick, 560 on
	} {
		if got := r.credit(at(c.ceiling), at(c.arrival), c.wait); got != c.want {
			t.Errorf("credit(%d ms, %d ms, %v) = %v, want %v", c.ceiling, c.arrival, c.wait, got, c.want)
		}
	}
}
