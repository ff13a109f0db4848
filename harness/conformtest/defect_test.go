package conformtest

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
)

// A scenario that is ill-formed in a way only a check can find (a check
// before "When the session runs", a check of a bound or a subscriber the
// scenario never sets) is an error of the scenario naming the defect,
// never a fail of the kernel: a custom --features file or a shrunk fuzz
// case does not blame the kernel for its own mistake.
func TestIllFormedScenarioIsAnErrorNotAFail(t *testing.T) {
	fsys := fstest.MapFS{"ill.feature": {Data: []byte(`Feature: ill-formed scenarios

  @TA-10 @must
  Scenario: a check before the session runs
    Given the model answers request 1 with text "Done."
    Then the model was asked 1 time
    When the session runs

  @TA-22 @must
  Scenario: a time-limited check without a time limit
    Given the model answers request 1 with text "Done."
    When the session runs
    Then the session ended on its own

  @TA-06 @must
  Scenario: a post-model-response cost check without a subscriber there
    Given the model answers request 1 with text "Done."
    When the session runs
    Then the post-model-response payloads carried the cost of each reply
`)}}
	r, err := runner.Run(context.Background(), runner.Options{
		FS: fsys, Root: ".", Launcher: adapter.InProcess{Name: "reference", Serve: serve},
		Concurrency: 1, ScenarioTimeout: 20 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a check before the session runs":                             `"When the session runs"`,
		"a turn-bound check without a turn bound":                     "sets no turn bound",
		"a post-model-response cost check without a subscriber there": "subscribes nobody at post-model-response",
	}
	if len(r.Scenarios) != len(want) {
		t.Fatalf("%d scenarios ran, want %d", len(r.Scenarios), len(want))
	}
	for _, s := range r.Scenarios {
		if s.Status != report.Error || !strings.HasPrefix(s.Failure, "the scenario is ill-formed: ") || !strings.Contains(s.Failure, want[s.Name]) {
			t.Errorf("%s: %s %q, want error naming the scenario's defect (%s)", s.Name, s.Status, s.Failure, want[s.Name])
		}
	}
	for _, q := range r.Requirements {
		if q.Status == report.Fail {
			t.Errorf("%s failed on an ill-formed scenario: %s", q.ID, q.Reason)
		}
	}
}
