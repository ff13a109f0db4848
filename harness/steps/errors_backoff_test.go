package steps

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/calllog"
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
// failure: the time the kernel or the harness waited for a CPU between the
// error answer and the retry is not counted against the ceiling (the ai-sdk
// framework's 10 ms retry came 6.2 s late at load 25). The floor still
// counts it, and a kernel that sleeps is charged in full.
func TestBackoffCeilingDiscountsWaitingForACPU(t *testing.T) {
	starvedRetry := func(starved time.Duration) []retrySample {
		xs := samples(func(_ int, n time.Duration) time.Duration { return n })
		xs[5].wait, xs[5].starved = 6*time.Second+xs[5].wait, starved
		return xs
	}
	if err := backoffScenario(nil).judgeWaits(starvedRetry(6*time.Second), tBase, tFactor); err != nil {
		t.Errorf("a retry 6 s late, all of it spent waiting for a CPU, was blamed: %v", err)
	}
	if err := backoffScenario(nil).judgeWaits(starvedRetry(0), tBase, tFactor); err == nil {
		t.Error("a retry that slept 6 s past its 40 ms nominal delay passed")
	}
	prev := calllog.Entry{EndCPUWait: 2 * time.Second}
	if got := starvedBetween(prev, calllog.Entry{StartCPUWait: 5 * time.Second}); got != 3*time.Second {
		t.Errorf("starvedBetween = %v, want 3s", got)
	}
	if got := starvedBetween(prev, calllog.Entry{}); got != 0 {
		t.Errorf("starvedBetween without a clock = %v, want 0", got)
	}
}
