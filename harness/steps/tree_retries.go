package steps

import (
	"fmt"
	"strconv"
	"time"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// ER-01 in a tree (issue 29, the clause map's gaps): each child retries
// its own transient model errors with the backoff of the session config.
// Two children fail at the same moment, so a kernel that keeps retry
// state per model for the whole tree (not per call) lets one child use up
// the other's retries. Waits are read from the log, as for the root.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^"([^"]+)" sub-agents fail requests? (\d+)(?: to (\d+))? with "([a-z_]+)"$`), s.saFails)
		sc.Step(stepRE(`^the first model requests of (\d+) "([^"]+)" sub-agents are held until they all wait, then answered together$`), func(n int, profile string) error {
			s.World.Agents.Hold(profile, 1, &fakes.ModelHold{N: n, Timeout: s.env.Scale(saHoldTimeout)})
			return nil
		})
		sc.Step(stepRE(`^each "([^"]+)" child's model requests (\d+) to (\d+) were retries, waiting a backoff from (\d+) ms growing by a factor of (\d+(?:\.\d+)?)$`), s.proves(s.childBackoff, "ER-01"))
	})
}

func (s *Scenario) saFails(profile, from, to, category string) error {
	a, b, err := requestRange(from, to)
	if err != nil {
		return err
	}
	me, err := modelError(category, nil)
	if err != nil {
		return err
	}
	for n := a; n <= b; n++ {
		s.World.Agents.Model(profile).On(n, fakes.Reply{Error: me})
	}
	return nil
}

// childBackoff: each child of the profile retried its own failed requests
// with the backoff of the session config, whatever its siblings' errors at
// the same moment.
func (s *Scenario) childBackoff(profile string, a, b, baseMS int, factor string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	f, err := strconv.ParseFloat(factor, 64)
	if err != nil {
		return err
	}
	t := s.saTree()
	ids := t.with(profile, 1)
	if len(ids) == 0 {
		return notReached("no %q child was started", profile)
	}
	for _, id := range ids {
		var in []retrySample
		for _, x := range retrySamplesIn(s.saRequests(id, wire.MethodModelStream)) {
			if x.req >= a && x.req <= b {
				in = append(in, x)
			}
		}
		if len(in) < b-a+1 {
			return fmt.Errorf("expected model requests %d to %d of the %q child %s to be retries of its failed requests; it sent %s, %d of them retries, and ended %q",
				a, b, profile, id, plain.Count(len(s.saRequests(id, wire.MethodModelStream)), "model request"), len(in), t.end[id].Status)
		}
		if err := s.judgeWaits(in, time.Duration(baseMS)*time.Millisecond, f); err != nil {
			return fmt.Errorf("the %q child %s: %w", profile, id, err)
		}
	}
	return nil
}
