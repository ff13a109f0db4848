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
