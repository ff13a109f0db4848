package steps

import (
	"fmt"
	"strconv"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

// TA-04 in a child (issue 29, TA-04.wall-clock, tree side): a child whose
// turn crosses max_wall_clock_s (the bound it inherits from the session
// config) takes the limit path at the end of that turn. Whether a child's
// clock runs from its own start or from the root's the specification does
// not say; the scenario makes the turn cross the bound by a second either
// way, so the check holds under both and judges only that the bound fires
// in the child at all.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the "([^"]+)" child's wall-clock bound of (\S+) seconds fired at the end of its turn (\d+), which crossed it$`), s.proves(s.childWallClockFired, "TA-04"))
	})
}

func (s *Scenario) childWallClockFired(profile, secs string, n int) error {
	c, err := s.childEnding(profile, "child")
	if err != nil {
		return err
	}
	v, err := strconv.ParseFloat(secs, 64)
	if err != nil {
		return err
	}
	id, turns, final, end := c.id, c.turns, c.final, c.end
	switch {
	case final < 0:
		return fmt.Errorf("the %q child (%s) made no final-answer request in its %d turns; it ended %q", profile, id, len(turns), end.Status)
	case final != n:
		return fmt.Errorf("the %q child (%s) took the limit path after %d ordinary turns; its turn %d crossed its wall-clock bound of %s s, so the bound fires at its end", profile, id, final, n, secs)
	case end.Status != wire.StatusErrorMaxWallClock:
		return fmt.Errorf("the %q child (%s) ended %q; its wall-clock bound fired, so it ends %q", profile, id, end.Status, wire.StatusErrorMaxWallClock)
	}
	// The lower bound counts from the earliest moment any clock of the
	// tree can have started, the root's (clockmark.go): under either
	// reading the child's clock starts no sooner, and a kernel that is
	// slow to start its first turn spends its child's bound before the
	// child's first request, not after it.
	if gap := turns[final].Start.Sub(s.clockStartedAfter()); gap < s.env.Scale(time.Duration(v*float64(time.Second))) {
		return fmt.Errorf("the %q child (%s) made its final-answer request %v after the session started, before its bound of %s s could have passed", profile, id, gap.Round(time.Millisecond), secs)
	}
	return nil
}
