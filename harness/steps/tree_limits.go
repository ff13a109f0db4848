package steps

import (
	"fmt"
	"strconv"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// Bounds in a child (issue 29, the clause map's gaps), read from the log
// as bounds.feature reads them in the root: a kernel that keeps a child's
// bounds or its limit path for the root only fails these.
//
//   - TA-03: a child's own max_cost_usd fires at the end of the turn whose
//     spend reached it (TA-07 judges the budget a child inherits; this is
//     the cap itself);
//   - TA-08: a child whose bound fired takes exactly one final-answer turn.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the "([^"]+)" child's own cost cap of \$(\S+) fired at the end of its turn (\d+), the first whose spend reached it$`), s.proves(s.childCostCapFired, "TA-03"))
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

// childEnding is what a child's limit path is judged on: its model
// requests of turns, the index of its final-answer request among them (-1
// for none) and the row that ended it.
type childEnding struct {
	id    string
	turns []calllog.Entry
	final int
	end   wire.SessionMeta
}

func (s *Scenario) childEnding(profile, rel string) (childEnding, error) {
	id, t, err := s.saOne(profile, rel)
	if err != nil {
		return childEnding{}, err
	}
	turns := s.sessionTurns(id)
	return childEnding{id: id, turns: turns, final: s.finalAnswerAt(turns), end: t.end[id]}, nil
}

// childCostCapFired: the child's own cap fires at the end of the first turn
// by whose end its subtree had spent it, not before; the child ends
// error_max_budget_usd.
func (s *Scenario) childCostCapFired(profile, capUSD string, want int) error {
	id, t, err := s.saOne(profile, "child")
	if err != nil {
		return err
	}
	limit, err := strconv.ParseFloat(capUSD, 64)
	if err != nil {
		return err
	}
	costs := s.saCosts()
	turns := s.sessionTurns(id)
	k := 0
	for j := 1; j <= len(turns) && k == 0; j++ {
		before := 0
		if j < len(turns) {
			before = turns[j].Seq
		}
		if saSum(costs, t.subtree(id), before) >= limit-1e-12 {
			k = j
		}
	}
	if k != want {
		return scenarioDefect("the %q child's spend reached $%s by the end of its turn %d, not %d: the scenario's usage does not pin the turn", profile, capUSD, k, want)
	}
	ordinary := len(turns)
	if f := s.finalAnswerAt(turns); f >= 0 {
		ordinary = f
	}
	end := t.end[id]
	switch {
	case ordinary != k:
		return fmt.Errorf("the %q child (%s) had spent its cap of $%s by the end of its turn %d, so its bound fires there; it ran %d ordinary turns (it spent $%s in all) and ended %q",
			profile, id, capUSD, k, ordinary, usd(saSum(costs, t.subtree(id), 0)), end.Status)
	case end.Status != wire.StatusErrorMaxBudgetUSD:
		return fmt.Errorf("the %q child (%s) ended with status %q; its own cost cap fired, so it ends %q", profile, id, end.Status, wire.StatusErrorMaxBudgetUSD)
	}
	return nil
}

// childOneFinalTurn: once the child's bound fired, exactly one final-answer
// turn, and the child does not end failed.
func (s *Scenario) childOneFinalTurn(profile, rel string) error {
	c, err := s.childEnding(profile, rel)
	if err != nil {
		return err
	}
	id, turns, final, end := c.id, c.turns, c.final, c.end
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
