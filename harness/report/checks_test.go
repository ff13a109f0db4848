package report

import (
	"strings"
	"testing"
	"time"
)

// A requirement's verdict comes only from the checks that name it: one
// scenario tagged TA-01 and TA-02 whose TA-01 check fails and whose TA-02
// check passes fails TA-01 alone.
func TestCheckAttribution(t *testing.T) {
	scn := func(line int, checks ...CheckResult) ScenarioResult {
		st, _ := Pass, ""
		for _, c := range checks {
			if c.Status == Fail {
				st = Fail
			}
		}
		return ScenarioResult{File: "b.feature", Line: line, Tags: []string{"@TA-01", "@TA-02"}, Status: st, Checks: checks}
	}
	check := func(line int, st Status, msg string, ids ...string) CheckResult {
		return CheckResult{Step: "step " + msg, Line: line, Requirements: ids, Status: st, Message: msg}
	}
	tests := []struct {
		name      string
		scenarios []ScenarioResult
		want      map[string]Status
		partial   map[string]bool
		failures  map[string]int
		reasonHas map[string]string
	}{
		{
			name:      "a failing check blames only what it names",
			scenarios: []ScenarioResult{scn(3, check(4, Fail, "asked 3 times", "TA-01"), check(5, Pass, "", "TA-02"))},
			want:      map[string]Status{"TA-01": Fail, "TA-02": Pass},
			reasonHas: map[string]string{"TA-01": "b.feature:4: asked 3 times"},
		},
		{
			name: "every failing check is listed",
			scenarios: []ScenarioResult{
				scn(3, check(4, Fail, "first", "TA-01"), check(5, Fail, "second", "TA-01", "TA-02")),
				scn(9, check(10, Fail, "third", "TA-01")),
			},
			want:      map[string]Status{"TA-01": Fail, "TA-02": Fail},
			failures:  map[string]int{"TA-01": 3, "TA-02": 1},
			reasonHas: map[string]string{"TA-01": "and 2 more failing checks"},
		},
		{
			name:      "only not-reached checks make no verdict",
			scenarios: []ScenarioResult{scn(3, check(4, Fail, "no final turn", "TA-01"), check(5, NotReached, "there was no request 4", "TA-02"))},
			want:      map[string]Status{"TA-01": Fail, "TA-02": NotTested},
			reasonHas: map[string]string{"TA-02": "not reached: b.feature:3: there was no request 4"},
		},
		{
			name: "a pass beside a check not reached in the same scenario is no pass",
			scenarios: []ScenarioResult{
				scn(3, check(4, Pass, "", "TA-01", "TA-02"), check(5, NotReached, "no request 4", "TA-02")),
			},
			want:      map[string]Status{"TA-01": Pass, "TA-02": NotTested},
			reasonHas: map[string]string{"TA-02": "not reached: b.feature:3: no request 4"},
		},
		{
			name: "a pass in one scenario beside one not reached in another is partial",
			scenarios: []ScenarioResult{
				scn(3, check(4, Pass, "", "TA-01", "TA-02")),
				scn(9, check(10, NotReached, "no request 4", "TA-02")),
			},
			want:    map[string]Status{"TA-01": Pass, "TA-02": Pass},
			partial: map[string]bool{"TA-02": true},
		},
		{
			name:      "a tag no check proves is not a verdict",
			scenarios: []ScenarioResult{scn(3, check(4, Pass, "", "TA-01"))},
			want:      map[string]Status{"TA-01": Pass, "TA-02": NotTested},
			reasonHas: map[string]string{"TA-02": "no check of this scenario proves TA-02"},
		},
		{
			name:      "an unverifiable check alone is unverifiable, never pass",
			scenarios: []ScenarioResult{scn(3, check(4, Unverifiable, "no spans", "TA-02"), check(5, Pass, "", "TA-01"))},
			want:      map[string]Status{"TA-01": Pass, "TA-02": Unverifiable},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Build(testCatalog(), Kernel{}, tt.scenarios, started, time.Second)
			for id, want := range tt.want {
				got := find(t, r, id)
				if got.Status != want {
					t.Errorf("%s = %s (%s), want %s", id, got.Status, got.Reason, want)
				}
				if p, ok := tt.partial[id]; ok && got.Partial != p {
					t.Errorf("%s partial = %v (%s), want %v", id, got.Partial, got.Unverified, p)
				}
				if n, ok := tt.failures[id]; ok && len(got.Failures) != n {
					t.Errorf("%s lists %d failing checks, want %d: %+v", id, len(got.Failures), n, got.Failures)
				}
				if has, ok := tt.reasonHas[id]; ok && !strings.Contains(got.Reason, has) {
					t.Errorf("%s reason %q lacks %q", id, got.Reason, has)
				}
			}
		})
	}
}

// Observations are gathered from every scenario and never change a verdict.
func TestObservationsNeverJudge(t *testing.T) {
	s := ScenarioResult{File: "p.feature", Line: 7, Tags: []string{"@TA-01"}, Status: Pass,
		Checks:       []CheckResult{{Step: "x", Line: 8, Requirements: []string{"TA-01"}, Status: Pass}},
		Observations: []Observation{{Subject: "A-15", What: "reads ran one at a time"}}}
	r := Build(testCatalog(), Kernel{}, []ScenarioResult{s}, started, time.Second)
	if len(r.Observations) != 1 || r.Observations[0].Scenario != "p.feature:7" {
		t.Fatalf("observations = %+v", r.Observations)
	}
	if got := find(t, r, "TA-01"); got.Status != Pass {
		t.Errorf("TA-01 = %s with an observation, want pass", got.Status)
	}
}

// Every format says in its first lines that a run was interrupted, and the
// JUnit suite time is the wall time of the suite, not a sum over scenarios
// that ran in parallel.
func TestInterruptedAndWallTime(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	scs := []ScenarioResult{
		{File: "a.feature", Line: 1, Tags: []string{"@TA-01"}, Status: Pass, Started: t0, Duration: 2 * time.Second,
			Checks: []CheckResult{{Step: "s", Line: 2, Requirements: []string{"TA-01"}, Status: Pass}}},
		{File: "a.feature", Line: 5, Tags: []string{"@TA-02"}, Status: Pass, Started: t0.Add(time.Second), Duration: 2 * time.Second,
			Checks: []CheckResult{{Step: "s", Line: 6, Requirements: []string{"TA-02"}, Status: Pass}}},
		{File: "a.feature", Line: 9, Tags: []string{"@TA-03"}, Status: NotRun, Failure: "the run was interrupted"},
	}
	r := BuildWith(testCatalog(), Kernel{Name: "k"}, scs, t0, 3*time.Second, BuildOptions{Interrupted: true})
	var text, md, junit strings.Builder
	if err := writeText(&text, r, nil); err != nil {
		t.Fatal(err)
	}
	if err := writeMarkdown(&md, r, nil); err != nil {
		t.Fatal(err)
	}
	if err := writeJUnit(&junit, r, nil); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "junit": junit.String()} {
		head := strings.Join(strings.SplitN(out, "\n", 5)[:4], "\n")
		if !strings.Contains(strings.ToLower(head), "interrupted") {
			t.Errorf("%s does not say interrupted in its first lines:\n%s", name, head)
		}
	}
	if !strings.Contains(junit.String(), `<testsuite name="a.feature" tests="3" failures="0" errors="0" skipped="1" time="3.000"`) {
		t.Errorf("JUnit suite time is not the wall time of the suite (3 s):\n%s", junit.String())
	}
	if r.Compliance.Level != LevelNone || !strings.HasPrefix(r.Compliance.Label, "no compliance claim") {
		t.Errorf("an interrupted run claims %q", r.Compliance.Label)
	}
}
