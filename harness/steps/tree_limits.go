package steps

import (
	"fmt"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// Bounds in a child (issue 29, the clause map's gaps), read from the log
// as bounds.feature reads them in the root: a kernel that keeps a child's
// bounds or its limit path for the root only fails these.
//
//   - TA-08: a child whose bound fired takes exactly one final-answer turn.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the "([^"]+)" (child|grandchild) took exactly one final-answer turn after its bound fired$`), s.proves(s.childOneFinalTurn, "TA-08"))
	})
}

// sessionTurns are a session's model requests of turns: loop checks and
// retries of one call left out, as for the root (turnEntries).
func (s *Scenario) sessionTurns(id string) []calllog.Entry {
	var out []calllog.Entry
	for _, e := range s.saRequests(id, wire.MethodModelStream) {
		if p, _ := e.Value.(wire.ModelStreamParams); p.Purpose != wire.PurposeLoopCheck && p.Attempt <= 1 {
			out = append(out, e)
		}
	}
	return out
}

// childOneFinalTurn: once the child's bound fired, exactly one final-answer
// turn, and the child does not end failed.
func (s *Scenario) childOneFinalTurn(profile, rel string) error {
	id, t, err := s.saOne(profile, rel)
	if err != nil {
		return err
	}
	turns := s.sessionTurns(id)
	end := t.end[id]
	final := s.finalAnswerAt(turns)
	switch {
	case final < 0:
		return fmt.Errorf("the %q %s (%s) made no final-answer request after its last ordinary turn (model request %d); it ended %q",
			profile, rel, id, len(turns), end.Status)
	case len(turns)-final-1 > 0:
		return fmt.Errorf("the %q %s (%s) made its final-answer request as model request %d and asked the model %d more times after it",
			profile, rel, id, final+1, len(turns)-final-1)
	case end.Status == wire.StatusFailed:
		return fmt.Errorf("the %q %s (%s) ended %q after its final-answer turn; a fired bound never ends a session as failed", profile, rel, id, end.Status)
	}
	return nil
}
