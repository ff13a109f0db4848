package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/internal/testrace"
)

// --fail-fast stops on what the exit status is built from: a scenario that
// fails a SHOULD does not stop a run gated on MUST, and a passing one never
// stops it.
func TestFailFastStopsOnlyAtTheRequireLevel(t *testing.T) {
	row := func(id string, st report.Status) report.ScenarioResult {
		return report.ScenarioResult{File: "x.feature", Line: 3, Name: "s", Tags: []string{"@" + id}, Requirements: []string{id}, Status: st,
			Checks: []report.CheckResult{{Step: "then", Line: 4, Requirements: []string{id}, Status: st}}}
	}
	for _, c := range []struct {
		level string
		row   report.ScenarioResult
		stop  bool
	}{
		{"must", row("TA-02", report.Fail), true},
		{"must", row("TA-13", report.Fail), false},
		{"should", row("TA-13", report.Fail), true},
		{"all", row("TA-13", report.Fail), true},
		{"all", row("TA-02", report.Pass), false},
	} {
		var first *report.ScenarioResult
		stopWhen, err := failFast(c.level, &first)
		if err != nil {
			t.Fatal(err)
		}
		if got := stopWhen(c.row); got != c.stop || (first != nil) != c.stop {
			t.Errorf("level %s, %s %s: stop %v (first kept %v), want %v", c.level, c.row.Requirements[0], c.row.Status, got, first != nil, c.stop)
		}
	}
}

// Against a kernel that fails MUSTs, --fail-fast comes back after the first
// failure with exit 1, a report that names where it stopped, no compliance
// claim, and the rest not run.
func TestFailFastRun(t *testing.T) {
	testrace.SkipUnderRace(t)
	k := naiveKernel(t)
	rep := filepath.Join(t.TempDir(), "r.json")
	code, _, errOut := conform(t, "run", "-q", "--fail-fast", "--kernel", k, "--report-json", rep)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s", code, exitFailed, errOut)
	}
	b, err := os.ReadFile(rep)
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if !r.Interrupted || r.Compliance.Level != report.LevelNone {
		t.Errorf("interrupted %v, compliance %q: a stopped run makes no claim", r.Interrupted, r.Compliance.Label)
	}
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "--fail-fast: the run stopped after") {
		t.Errorf("no warning says where the run stopped: %q", r.Warnings)
	}
	if r.Summary.Requirements[report.Fail]+r.Summary.Requirements[report.Error] == 0 || r.Summary.Scenarios[report.NotRun] == 0 {
		t.Errorf("summary %+v: want a failure and scenarios not run", r.Summary)
	}
	for _, bad := range [][]string{{"--fail-fast", "--repeat", "2"}, {"--fail-fast", "--baseline", "b.yaml"}} {
		if code, _, _ := conform(t, append([]string{"run", "-q"}, bad...)...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", bad, code, exitUsage)
		}
	}
}
