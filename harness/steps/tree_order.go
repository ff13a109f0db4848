package steps

import (
	"fmt"
	"strings"

	"github.com/cucumber/godog"

	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// TA-01 in a child (issue 29, TA-01.step-order, tree side): a child's
// turns run the RunTurn steps in the documented order too, read from the
// child's own requests as turn_order.feature reads the root's. A loop that
// skips step 1 for sub-agents (they start from their prompt alone) fails
// it.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the requests of the "([^"]+)" (child|grandchild)'s turn (\d+) arrived in this order:$`), s.proves(func(profile, rel string, n int, t *godog.Table) error {
			var want []string
			for _, r := range t.Rows {
				want = append(want, strings.TrimSpace(r.Cells[0].Value))
			}
			return s.childTurnOrder(profile, rel, n, want)
		}, "TA-01"))
	})
}

func (s *Scenario) childTurnOrder(profile, rel string, n int, want []string) error {
	id, _, err := s.saOne(profile, rel)
	if err != nil {
		return err
	}
	ts := turnsIn(s.saRequests(id, ""))
	if n >= len(ts) {
		if got := len(s.sessionTurns(id)); got < n {
			return notReached("the %q %s (%s) has no turn %d: it made %s", profile, rel, id, n, plain.Count(got, "turn request"))
		}
		return fmt.Errorf("expected the %q %s (%s) to run at least %d turns, each starting with context/assemble (step 1); it made %d model requests but only %d context/assemble requests",
			profile, rel, id, n, len(s.saRequests(id, wire.MethodModelStream)), len(ts)-1)
	}
	if diff := plain.Diff(want, labels(ts[n])); diff != "" {
		return fmt.Errorf("the %q %s (%s)'s turn %d requests arrived in another order (-expected +kernel):\n%s", profile, rel, id, n, diff)
	}
	return nil
}
