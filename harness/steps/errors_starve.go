package steps

import (
	"sync"
	"time"
)

// starveRecord is what the retry watcher saw of a busy machine while a
// session ran: the intervals in which the harness itself did not run (its
// ticks came late) and, every few ticks, the kernel's CPU-wait clock. A
// retry that came past its ceiling is credited only what a busy machine
// took out of the time after that ceiling. Crediting the whole interval
// since the error answer, the harness's busiest thread included, gave an
// ai-sdk retry 8 s after the error answer a pass against a 5.3 s ceiling
// at load 15: that thread had queued seconds for a CPU serving other
// scenarios while the kernel's timer ran on time. A kernel that meant to
// retry in time and was kept from a CPU waits after its ceiling; one that
// sleeps does not.
type starveRecord struct {
	mu      sync.Mutex
	period  time.Duration
	last    time.Time
	idle    []span // the harness ran no tick: [from, to]
	samples []waitSample
	ticks   int
}

type span struct{ from, to time.Time }

// waitSample is the kernel's CPU-wait clock (calllog.Log.CPUWait) read at.
type waitSample struct {
	at   time.Time
	wait time.Duration
}

// sampleEvery: the kernel's clock costs a file read per thread; every
// fifth tick is 100 ms apart at the watcher's 20 ms.
const sampleEvery = 5

func newStarveRecord(period time.Duration) *starveRecord {
	return &starveRecord{period: period}
}

// tick records one watcher tick at now; kernelWait reads the kernel's
// CPU-wait clock.
func (r *starveRecord) tick(now time.Time, kernelWait func() time.Duration) {
	var w time.Duration
	sample := r.ticks%sampleEvery == 0
	if sample {
		w = kernelWait()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.last.IsZero() && now.Sub(r.last) > 2*r.period {
		r.idle = append(r.idle, span{r.last.Add(r.period), now})
	}
	r.last = now
	r.ticks++
	if sample {
		r.samples = append(r.samples, waitSample{now, w})
	}
}

// credit is how much of the time between ceiling and arrival a busy
// machine took: the harness's idle intervals (a tick overdue since the
// last one, the time after the watcher's last tick included, is one)
// and the kernel's CPU wait from its first sample at or after ceiling to
// arrivalWait, the clock as the arrival read it. At most arrival-ceiling:
// the two may overlap. 0 for a nil record (no watcher ran: nothing is
// credited) or an arrival within the ceiling.
func (r *starveRecord) credit(ceiling, arrival time.Time, arrivalWait time.Duration) time.Duration {
	if r == nil || !arrival.After(ceiling) {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var sum time.Duration
	idle := r.idle
	if !r.last.IsZero() && arrival.Sub(r.last) > 2*r.period {
		idle = append(idle[:len(idle):len(idle)], span{r.last.Add(r.period), arrival})
	}
	for _, s := range idle {
		from, to := later(s.from, ceiling), earlier(s.to, arrival)
		if to.After(from) {
			sum += to.Sub(from)
		}
	}
	for _, x := range r.samples {
		if !x.at.Before(ceiling) && !x.at.After(arrival) {
			sum += max(0, arrivalWait-x.wait)
			break
		}
	}
	return min(sum, arrival.Sub(ceiling))
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
