package mutants

// Attribution regressions found on real frameworks: a kernel that lacks one
// feature is charged for it where that feature is judged, not elsewhere.

import (
	"context"
	"github.com/agentconform/conform/internal/testrace"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/refkernel/hooks"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// A kernel that never dispatches post-apply is charged for that where the
// point is judged (TA-01's turn order), not for SA-04: whether the parent
// waited for its children is still seen by its next model request. Found
// on the OpenAI Agents SDK, whose runner awaits every tool call of a turn
// but has no awaited hook after them; SA-04 failed on the missing
// dispatch alone.
func TestJoinNotBlamedForMissingPostApply(t *testing.T) {
	testrace.SkipUnderRace(t) // a suite run end to end, no concurrency under test: make e2e
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
	testrace.SkipUnderRace(t) // a suite run end to end, no concurrency under test: make e2e
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

// A kernel that never dispatches post-model-response is charged for the
// missing point where the point is judged (ER-08 here), not by TA-06: its
// costs are right, and the payload clause of TA-06 is not reached, so TA-06
// passes partially. Found on the OpenAI Agents SDK, which has no hook after
// a model response.
func TestCostNotBlamedForMissingPostModelResponse(t *testing.T) {
	testrace.SkipUnderRace(t) // a suite run end to end, no concurrency under test: make e2e
	parts := loop.DefaultParts()
	parts.Hooks = skipAt{Dispatcher: hooks.Standard{}, point: wire.PointPostModelResponse}
	r, err := runner.Run(context.Background(), runner.Options{
		Launcher: launcher("no-post-model-response", parts), Tags: "@TA-06,@ER-08", Concurrency: 2, ScenarioTimeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]report.RequirementResult{}
	for _, q := range r.Requirements {
		got[q.ID] = q
	}
	if q := got["TA-06"]; q.Status != report.Pass || !q.Partial {
		t.Errorf("TA-06 is %s (partial %v) for a kernel that prices every reply right but never dispatches post-model-response: %s", q.Status, q.Partial, q.Reason)
	}
	if q := got["ER-08"]; q.Status != report.Fail {
		t.Errorf("ER-08 is %s; the missing post-model-response dispatch must still be charged where the point is judged", q.Status)
	}
}

// A chain at a point the kernel never dispatches never had a failing
// member: HD-03's middle-of-chain scenarios are not reached there (OpenAI
// Agents and Genkit were blamed for HD-03 this way), and the missing point
// is still charged where dispatch of the point is judged (ER-08).
func TestChainNotBlamedAtAPointNeverDispatched(t *testing.T) {
	testrace.SkipUnderRace(t) // a suite run end to end, no concurrency under test: make e2e
	parts := loop.DefaultParts()
	parts.Hooks = skipAt{Dispatcher: hooks.Standard{}, point: wire.PointPostModelResponse}
	r, err := runner.Run(context.Background(), runner.Options{
		Launcher: launcher("no-post-model-response", parts), Tags: "@HD-03,@ER-08", Concurrency: 2, ScenarioTimeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range r.Scenarios {
		if sc.File == "hook_failures.feature" && strings.Contains(sc.Name, "middle of a chain at post-model-response") && sc.Status == report.Fail {
			t.Errorf("%s:%d failed for a kernel that never dispatches post-model-response: %s", sc.File, sc.Line, sc.Failure)
		}
	}
	got := map[string]report.RequirementResult{}
	for _, q := range r.Requirements {
		got[q.ID] = q
	}
	if q := got["ER-08"]; q.Status != report.Fail {
		t.Errorf("ER-08 is %s; the missing post-model-response dispatch must still be charged where the point is judged", q.Status)
	}
}
