package steps

import (
	"context"
	"fmt"
	"time"

	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/spec/wire"
)

// A retry that has not come by its ceiling fails at the ceiling, with the
// figure, instead of running the scenario into its timeout: a kernel that
// sleeps its own fixed 10 s between retries is a backoff failure (ER-01),
// not a hang. While the session runs, a watcher looks at the root's last
// model request; when the harness answered it with a transient error and
// the kernel may still retry (its per-call cap is not used up), it waits
// for the next model request or the end of the session. Nothing else the
// kernel sends counts: a kernel in backoff may well report a retry event
// first. Past the retry's ceiling (errors_backoff.go waitBounds) the
// harness ends the run; the backoff checks fail with the figure and the
// other checks of the scenario are not reached.
//
// The same schedule gives the scenario its time: the run's timeout is
// extended by the ceilings of the retries the scenario scripts, so a
// kernel that declares a slow backoff (retry.added_delay_ms) is judged by
// its waits, never by the scenario timeout.

// erRetries is what the scenario scripted of transient model errors.
type erRetries struct {
	s *Scenario
	// budget are the retries the script expects, each with its retry
	// number and retry-after; every function runs at run time, once the
	// whole config is known.
	budget []func() []retrySample
	armed  bool
}

// expect adds retries to the time budget and arms the watcher.
func (r *erRetries) expect(f func() []retrySample) {
	r.budget = append(r.budget, f)
	if r.armed {
		return
	}
	r.armed = true
	s := r.s
	s.onRun = append(s.onRun, func(k *driver.Kernel) {
		s.World.Log.SetCPUWait(k.KernelCPUWait)
		s.starve = newStarveRecord(watchPeriod)
		read := s.backoffReading()
		p := s.retryPlan()
		var extra time.Duration
		for _, f := range r.budget {
			for _, x := range f() {
				_, _, ceiling := s.waitBounds(read, nominalDelay(p.base, p.factor, x.k), x.retryAfter)
				extra += ceiling
			}
		}
		s.extraTime += extra
	})
	s.watchers = append(s.watchers, s.watchRetries)
}

// retriesOf is the budget of n failed calls that are each retried k times.
func retriesOf(calls, k int, retryAfter time.Duration) []retrySample {
	var out []retrySample
	for range calls {
		for i := 1; i <= k; i++ {
			out = append(out, retrySample{k: i, retryAfter: retryAfter})
		}
	}
	return out
}

// watchPeriod is how often the retry watcher looks; a tick overdue by
// more than one period marks the harness as kept from running.
const watchPeriod = 20 * time.Millisecond

func (s *Scenario) watchRetries(ctx context.Context, cut func(string)) {
	t := time.NewTicker(watchPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		s.starve.tick(now, s.World.Log.CPUWait)
		if why := s.retryOverdue(now); why != "" {
			cut(why)
			return
		}
	}
}

// retryOverdue says why the retry the kernel owes is past its ceiling at
// now, or "" when it is not (or none is owed).
func (s *Scenario) retryOverdue(now time.Time) string {
	es := s.modelEntries()
	if len(es) == 0 {
		return ""
	}
	last := es[len(es)-1]
	me := modelErrorOf(last)
	if me == nil || (me.Category != wire.ModelErrRateLimited && me.Category != wire.ModelErrOverloaded) {
		return ""
	}
	for _, m := range s.World.Metas() {
		if m.SessionID == s.SessionID && m.Status != wire.StatusRunning {
			return "" // the kernel gave up and ended the session
		}
	}
	// The retry number the kernel owes: one more than the failed requests
	// of this turn in a row.
	k, turn := 0, last.Value.(wire.ModelStreamParams).CallContext.TurnID
	for i := len(es) - 1; i >= 0; i-- {
		p := es[i].Value.(wire.ModelStreamParams)
		if p.CallContext.TurnID != turn || modelErrorOf(es[i]) == nil {
			break
		}
		k++
	}
	plan := s.retryPlan()
	if k > plan.maxRetries {
		return "" // the per-call cap is used up: no retry is owed
	}
	var ra time.Duration
	if me.RetryAfterMS != nil {
		ra = time.Duration(*me.RetryAfterMS) * time.Millisecond
	}
	read := s.backoffReading()
	n := nominalDelay(plan.base, plan.factor, k)
	_, hi, ceiling := s.waitBounds(read, n, ra)
	waited := now.Sub(last.End)
	if waited > ceiling {
		// Only what a busy machine took after the ceiling is credited:
		// a machine too busy to run the kernel is not its fault.
		starved := s.starve.credit(last.End.Add(ceiling), now, s.World.Log.CPUWait())
		if waited-starved <= ceiling {
			return ""
		}
		return fmt.Sprintf("retry %d after the %s answer to model request %d had not come %v later, past its ceiling %v%s (nominal %v, at most %v allowed by %s, plus a margin); the harness ended the session there",
			k, me.Category, len(es), waited.Round(time.Millisecond), ceiling, starvedNote(starved), n, hi, read)
	}
	return ""
}
