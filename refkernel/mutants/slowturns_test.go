package mutants

import (
	"context"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/internal/testrace"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/schedule"
)

// A correct kernel on a machine too slow for a wall-clock scenario's
// premise ("turns 1 and 2 take no time", bounds_wall_clock.feature) fires
// the bound where its clock has run out, earlier than the scenario
// expects. The log shows the bound was due there, so the check is not
// reached instead of failing TA-04: a loaded machine (the kill matrix
// blamed the legal variant plan/preview-deadline-10s so at load 30) or a
// slow kernel gets no false failure.
func TestWallClockScenarioOnASlowMachine(t *testing.T) {
	testrace.SkipUnderRace(t)
	p := loop.DefaultParts()
	p.Scheduler = slowScheduler{schedule.Standard{}, 700 * time.Millisecond}
	r := run(t, "slow-turns", p, "@TA-04")
	for _, q := range r.Requirements {
		if q.ID == "TA-04" && q.Status != report.Pass {
			t.Errorf("TA-04 is %s on a correct kernel whose tool turns take 0.7 s each: %s", q.Status, q.Reason)
		}
	}
}

// slowScheduler runs each turn's calls only after a pause.
type slowScheduler struct {
	schedule.Scheduler
	pause time.Duration
}

func (s slowScheduler) Run(ctx context.Context, jobs []schedule.Job, parallel bool) {
	select {
	case <-time.After(s.pause):
	case <-ctx.Done():
	}
	s.Scheduler.Run(ctx, jobs, parallel)
}

// The same when the time goes before the first request: a correct kernel
// that sends session_meta, then takes 1.2 s before its first turn (at load
// 70 the reference took 0.58 s there, and TestReferenceKernel failed TA-04).
// Its session clock started by its first message (PROTOCOL.md §15,
// wall-clock marks), so at step 17 of turn 1 the 1 s bound had run out and
// firing was right: measured from the first request instead, the check
// thought it had 0.1 s left and failed TA-04.
func TestWallClockScenarioOnASlowStart(t *testing.T) {
	testrace.SkipUnderRace(t)
	p := loop.DefaultParts()
	p.Steps = slowFirstTurn(1200 * time.Millisecond)
	r := run(t, "slow-start", p, "@TA-04")
	for _, q := range r.Requirements {
		if q.ID == "TA-04" && q.Status != report.Pass {
			t.Errorf("TA-04 is %s on a correct kernel that starts its first turn 1.2 s into the session: %s", q.Status, q.Reason)
		}
	}
}

// slowFirstTurn pauses before step 1 of turn 1.
func slowFirstTurn(pause time.Duration) []loop.Step {
	steps := loop.DefaultSteps()
	for i, st := range steps {
		if st.Name == loop.StepContextAssemble {
			run := st.Run
			steps[i].Run = func(t *loop.Turn) error {
				if t.Number == 1 {
					time.Sleep(pause)
				}
				return run(t)
			}
		}
	}
	return steps
}

// And when the time goes after a turn's last answer, before its step 17
// reads the clock (at load 70 legal variants were blamed for TA-04 this
// way): the kernel may have read past the bound there, so firing after
// turn 2 of "the bound does not fire while time is left" is no failure.
func TestWallClockScenarioOnASlowStep17(t *testing.T) {
	testrace.SkipUnderRace(t)
	p := loop.DefaultParts()
	p.Steps = slowBoundsAt(2, 1200*time.Millisecond)
	r := run(t, "slow-step-17", p, "@TA-04")
	for _, q := range r.Requirements {
		if q.ID == "TA-04" && q.Status != report.Pass {
			t.Errorf("TA-04 is %s on a correct kernel whose step 17 of turn 2 starts 1.2 s late: %s", q.Status, q.Reason)
		}
	}
}

// slowBoundsAt pauses before step 17 of turn n.
func slowBoundsAt(n int, pause time.Duration) []loop.Step {
	steps := loop.DefaultSteps()
	for i, st := range steps {
		if st.Name == loop.StepBounds {
			run := st.Run
			steps[i].Run = func(t *loop.Turn) error {
				if t.Number == n {
					time.Sleep(pause)
				}
				return run(t)
			}
		}
	}
	return steps
}
