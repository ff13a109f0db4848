package mutants

// Attribution regressions found on real frameworks: a kernel that lacks one
// feature is charged for it where that feature is judged, not elsewhere.

import (
	"context"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/refkernel/loop"
)

// A kernel that never dispatches post-apply is charged for that where the
// point is judged (TA-01's turn order), not for SA-04: whether the parent
// waited for its children is still seen by its next model request. Found
// on the OpenAI Agents SDK, whose runner awaits every tool call of a turn
// but has no awaited hook after them; SA-04 failed on the missing
// dispatch alone.
func TestJoinNotBlamedForMissingPostApply(t *testing.T) {
	parts := loop.DefaultParts()
	parts.Steps = loop.Without(loop.DefaultSteps(), loop.StepPostApply)
	r, err := runner.Run(context.Background(), runner.Options{
		Launcher: launcher("no-post-apply", parts), Tags: "@SA-04", Concurrency: 1, ScenarioTimeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range r.Requirements {
		if q.ID == "SA-04" && q.Status != report.Pass {
			t.Fatalf("SA-04 is %s for a kernel that joins its children but has no post-apply point: %s", q.Status, q.Reason)
		}
	}
}

// A kernel whose fired bound ends the session without the final-answer
// turn is charged for that by TA-08 and TA-21; a child that ran exactly its
// profile's max_turns ordinary turns still meets TA-02, as a root does
// (bounds.feature). Found on the OpenAI Agents SDK, whose maxTurns ends a
// nested run with MaxTurnsExceededError.
func TestChildTurnBoundNotBlamedForMissingFinalTurn(t *testing.T) {
	parts := loop.DefaultParts()
	parts.Limit = noFinalTurn{}
	r, err := runner.Run(context.Background(), runner.Options{
		Launcher: launcher("no-final-turn", parts), Tags: "@TA-02", Concurrency: 2, ScenarioTimeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range r.Requirements {
		if q.ID == "TA-02" && q.Status != report.Pass {
			t.Fatalf("TA-02 is %s for a kernel that keeps every max_turns but makes no final-answer turn: %s", q.Status, q.Reason)
		}
	}
}
