package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/internal/testrace"
)

// repoRoot is the repository's root: go test runs a package's tests in
// its folder (not runtime.Caller's file name, which -trimpath makes
// module-relative).
func repoRoot(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(wd, "..", "..")
}

// The naive Python kernel proves the protocol is language-neutral: it runs a
// plain loop, so it passes the turn-order basics and fails every row it
// ignores (bounds, costs at the tier in force, spans) — with no harness
// error. It never fires a bound, so what follows a fired bound (the
// final-answer turn, its shape, the status naming the bound) is not reached:
// TA-02 fails, TA-08, TA-20 and TA-21 are not tested.
func TestNaivePythonKernel(t *testing.T) {
	testrace.SkipUnderRace(t)
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	k := filepath.Join(repoRoot(t), "examples", "naive-kernel-python", "kernel.py")
	r, err := Run(context.Background(), Options{
		Launcher: adapter.Subprocess{Argv: []string{py, k}}, Concurrency: 2, ScenarioTimeout: 20 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]report.Status{
		"TA-01": report.Pass, "TA-10": report.Pass, "TA-18": report.Pass,
		"TA-02": report.Fail, "TA-08": report.NotTested, "TA-20": report.NotTested, "TA-21": report.NotTested,
		"TA-17": report.Fail, "TA-23": report.Fail,
	}
	got := map[string]report.RequirementResult{}
	for _, q := range r.Requirements {
		got[q.ID] = q
	}
	for id, st := range want {
		if got[id].Status != st {
			t.Errorf("%s: got %s, want %s (%s)", id, got[id].Status, st, got[id].Reason)
		}
	}
	for _, s := range r.Scenarios {
		if s.Status == report.Error {
			t.Errorf("harness error on %s:%d %s: %s", s.File, s.Line, s.Name, s.Failure)
		}
	}
}
