package steps

import (
	"encoding/json"
	"fmt"

	"github.com/agentconform/conform/fakes"
)

// TA-26 in a child (issue 29, TA-26.limit-path, tree side): a child that
// repeats one call takes the limit path right after the threshold's
// identical call, with one final-answer turn and the kernel's doom-loop
// status, read from the child's requests and its end row. A loop whose
// detector watches the top-level agent only lets the child run on.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^"([^"]+)" sub-agents answer every request with the same call to "([^"]+)"$`), func(profile, tool string) error {
			s.World.Agents.Model(profile).Every(fakes.Reply{Calls: []fakes.Call{{Name: tool, Input: json.RawMessage(shuffledInputs[0])}}})
			return nil
		})
		sc.Step(stepRE(`^the "([^"]+)" (child|grandchild) took the limit path right after its (\d+)(?:st|nd|rd|th) identical call, ending with the kernel's doom-loop status$`), s.proves(s.childDoomPath, "TA-26"))
	})
}

func (s *Scenario) childDoomPath(profile, rel string, n int) error {
	c, err := s.childEnding(profile, rel)
	if err != nil {
		return err
	}
	id, turns, final, end := c.id, c.turns, c.final, c.end
	switch {
	case final < 0:
		return fmt.Errorf("the %q %s (%s) repeated one call in each of its %d turns and made no final-answer request; it ended %q (threshold %d)", profile, rel, id, len(turns), end.Status, n)
	case final != n:
		return fmt.Errorf("the %q %s (%s) took the limit path after %d ordinary turns of one repeated call; the threshold is %d", profile, rel, id, final, n)
	case len(turns)-final-1 > 0:
		return fmt.Errorf("the %q %s (%s) asked the model %d more times after its final-answer request", profile, rel, id, len(turns)-final-1)
	}
	if ok, want := s.doomStatusOK(end.Status); !ok {
		return fmt.Errorf("after the doom loop the %q %s (%s) ended %q; expected %s", profile, rel, id, end.Status, want)
	}
	return nil
}
