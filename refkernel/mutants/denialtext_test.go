package mutants

import (
	"context"
	"fmt"
	"github.com/agentconform/conform/internal/testrace"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/plangate"
	"github.com/agentconform/conform/spec/wire"
)

// An interactive call the precheck should have denied but the kernel ran
// (it asked the frontend) fails as a call that ran, and its answer is never
// quoted as a denial reason: interactive calls go to the frontend, not to
// tool/invoke, so "not run" is not the absence of a tool/invoke. Before,
// plan_unanswered.feature:22 said the denial "names none of what decided
// it", quoting the human's answer, and PA-09's interactive example called the
// call "denied".
func TestRunInteractiveCallIsNotDescribedAsDenied(t *testing.T) {
	testrace.SkipUnderRace(t) // a suite run end to end, no concurrency under test: make e2e
	parts := loop.DefaultParts()
	parts.Policy = gatePolicy{pre: func(rules []wire.PolicyRule, c plangate.Call) plangate.Verdict {
		v := plangate.Standard{}.Precheck(rules, c)
		if c.Kind == wire.KindInteractive {
			v.Decision = wire.PolicyAllow
		}
		return v
	}}
	r, err := runner.Run(context.Background(), runner.Options{
		Launcher: launcher("interactive-runs-anyway", parts), Tags: "@PA-03,@PA-09", Concurrency: 2, ScenarioTimeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	// The interactive example row of PA-09's downgrade outline, found by its
	// text: its line moves whenever a scenario is added above it.
	row := featureLine(t, "plan_apply.feature", "| an interactive | ask   | tell")
	seen := map[string]bool{}
	for _, q := range r.Requirements {
		for _, f := range q.Failures {
			for _, where := range []string{"plan_unanswered.feature:22", row} {
				if f.Scenario != where {
					continue
				}
				seen[where] = true
				if strings.Contains(f.Message, "denial of the call") || strings.Contains(f.Message, "the denied") {
					t.Errorf("%s %s line %d describes a call that ran as denied: %s", q.ID, where, f.Line, f.Message)
				}
			}
		}
	}
	for _, where := range []string{"plan_unanswered.feature:22", row} {
		if !seen[where] {
			t.Errorf("%s did not fail for a kernel that runs the interactive call it should deny", where)
		}
	}
	for _, q := range r.Requirements {
		for _, f := range q.Failures {
			if f.Scenario == "plan_unanswered.feature:22" && strings.Contains(f.Message, "asked the frontend (frontend/interactive #") {
				return
			}
		}
	}
	t.Error("no failure of plan_unanswered.feature:22 says the call ran through the frontend")
}

// featureLine is "file:N" for the first line of features/file holding text.
func featureLine(t *testing.T, file, text string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "features", file))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(raw), "\n") {
		if strings.Contains(line, text) {
			return fmt.Sprintf("%s:%d", file, i+1)
		}
	}
	t.Fatalf("%s holds no line with %q", file, text)
	return ""
}
