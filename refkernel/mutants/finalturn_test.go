package mutants

import (
	"context"
	"github.com/agentconform/conform/internal/testrace"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/refkernel/loop"
)

// A kernel whose turn cap lets the model answer once more with the tools
// offered (no instruction, not labelled) and then drops the calls ran
// max_turns+1 ordinary turns: TA-02 fails on the ordinary-turn count, and
// TA-08 fails because no final-answer request followed. Before, TA-02's
// check took that request for the final-answer turn while TA-08's check of
// the same run said it was not one, and TA-02 passed (found on Genkit,
// whose WithMaxTurns(n) allows n+1 model turns).
func TestOrdinaryLastRequestFailsTA02(t *testing.T) {
	testrace.SkipUnderRace(t) // a suite run end to end, no concurrency under test: make e2e
	parts := loop.DefaultParts()
	parts.Limit = finalTurn{loop.FinalTurn{Unlabelled: true}}
	r, err := runner.Run(context.Background(), runner.Options{
		Launcher: launcher("ordinary-last-request", parts), Tags: "@TA-02", Concurrency: 2, ScenarioTimeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]report.RequirementResult{}
	for _, q := range r.Requirements {
		got[q.ID] = q
	}
	q := got["TA-02"]
	if q.Status != report.Fail {
		t.Fatalf("TA-02 is %s for a kernel that runs max_turns+1 ordinary turns: %s", q.Status, q.Reason)
	}
	counted := false
	for _, f := range q.Failures {
		if strings.HasPrefix(f.Scenario, "bounds.feature") && strings.Contains(f.Message, "ordinary turns before the limit path, the kernel ran") {
			counted = true
		}
	}
	if !counted {
		t.Errorf("TA-02 does not fail on bounds.feature's ordinary-turn count: %+v", q.Failures)
	}
	if q := got["TA-08"]; q.Status != report.Fail {
		t.Errorf("TA-08 is %s; the same run's TA-02 says no final-answer request followed: %s", q.Status, q.Reason)
	}
}
