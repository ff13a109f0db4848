package kittranscript

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
)

// Verify reports on t every message of the transcript that breaks the
// schemas, every kind in want the kit's self-test never sent, and a
// validator that cannot fail; it logs what was validated. The Go, Python
// and Node kits' tests share it.
func (r Result) Verify(t testing.TB, want []string) {
	t.Helper()
	for _, p := range r.Problems {
		t.Error(p)
	}
	for _, w := range want {
		if r.Seen[w] == 0 {
			t.Errorf("the self-test never made the kit send %s", w)
		}
	}
	if err := r.CanFail(); err != nil {
		t.Error(err)
	}
	var kinds []string
	for k := range r.Seen {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	t.Logf("validated: %s", strings.Join(kinds, ", "))
}

// ToyTurnOrder runs a kit's toy kernel (argv) through the turn-order
// scenarios, as `conform run --kernel … --tags @TA-01` does: the step order
// passes (TA-01, PA-07); the reads' overlap (TA-14, a scenario of the same
// tag) fails, because a toy runs its calls one at a time; and nothing is a
// harness error.
func ToyTurnOrder(t testing.TB, argv []string) {
	t.Helper()
	r, err := runner.Run(context.Background(), runner.Options{
		Launcher: adapter.Subprocess{Argv: argv}, Tags: "@TA-01", Concurrency: 2, ScenarioTimeout: 30 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]report.Status{}
	for _, q := range r.Requirements {
		got[q.ID] = q.Status
	}
	for id, want := range map[string]report.Status{"TA-01": report.Pass, "PA-07": report.Pass, "TA-14": report.Fail} {
		if got[id] != want {
			t.Errorf("%s: %s, want %s", id, got[id], want)
		}
	}
	for _, s := range r.Scenarios {
		if s.Status == report.Error {
			t.Errorf("harness error on %s:%d %s: %s", s.File, s.Line, s.Name, s.Failure)
		}
	}
}
