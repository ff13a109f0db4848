package mutation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTagScenarios(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	feature := `Feature: demo

  Background:
    Given a kernel

  @TA-01 @must
  Scenario: tagged
    Then it passes

  Scenario Outline: untagged <n>
    Then it passes

  @ER-01 @slow
  Scenario: slow
    Then it passes

    Examples:
      | n |
      | 1 |
`
	if err := os.WriteFile(filepath.Join(src, "demo.feature"), []byte(feature), 0o644); err != nil {
		t.Fatal(err)
	}
	units, err := tagScenarios(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	want := []scenarioUnit{{File: "demo.feature", Line: 7, Tag: "@mut_s1", Tags: "@TA-01 @must"}, {File: "demo.feature", Line: 10, Tag: "@mut_s2"},
		{File: "demo.feature", Line: 14, Tag: "@mut_s3", Slow: true, Tags: "@ER-01 @slow"}}
	if len(units) != len(want) || units[0] != want[0] || units[1] != want[1] || units[2] != want[2] {
		t.Fatalf("units = %+v, want %+v", units, want)
	}
	b, err := os.ReadFile(filepath.Join(dst, "demo.feature"))
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, line := range []string{"  @TA-01 @must @mut_s1\n  Scenario: tagged", "\n  @mut_s2\n  Scenario Outline: untagged"} {
		if !strings.Contains(got, line) {
			t.Errorf("tagged copy lacks %q:\n%s", line, got)
		}
	}
}

func TestScenarioTags(t *testing.T) {
	r := &reach{units: []scenarioUnit{{Tag: "@mut_s1"}, {Tag: "@mut_s2"}, {Tag: "@mut_s3"}}, blocks: map[string][]coverBlock{
		"a.go": {{l0: 1, c0: 1, l1: 5, c1: 2, hit: true, units: []int{2, 0}}, {l0: 6, c0: 1, l1: 9, c1: 2}},
	}}
	if got := r.scenarioTags("a.go", 3, 4, nil); got != "@mut_s1,@mut_s3" {
		t.Errorf("a reached statement: %q", got)
	}
	if got := r.scenarioTags("a.go", 7, 1, nil); got != "" {
		t.Errorf("an unreached statement: %q", got)
	}
	if got := r.at("a.go", 7, 1); got != ReachedNo {
		t.Errorf("an unreached statement is %q", got)
	}
	if got := (&reach{}).scenarioTags("a.go", 3, 4, nil); got != "" {
		t.Errorf("without per-scenario reach: %q", got)
	}
}

func TestScenarioTagsCaseExpression(t *testing.T) {
	src := []byte(`package p

func f(a, b int) int {
	switch {
	case a > b:
		return 1
	}
	return 0
}

var v = 1 + 2
`)
	// Blocks as go test -cover counts them: the case expression (line 5)
	// is in none.
	r := &reach{units: []scenarioUnit{{Tag: "@mut_s1"}, {Tag: "@mut_s2"}}, blocks: map[string][]coverBlock{
		"p.go": {{l0: 3, c0: 24, l1: 4, c1: 9, hit: true, units: []int{1}}, {l0: 5, c0: 13, l1: 6, c1: 11}},
	}}
	if got := r.scenarioTags("p.go", 5, 9, src); got != "@mut_s2" {
		t.Errorf("a case expression takes its function's scenarios: %q", got)
	}
	if got := r.scenarioTags("p.go", 11, 9, src); got != "" {
		t.Errorf("a package-level declaration: %q", got)
	}
}

// A run's nominal time: the longest scenario's wall time bounds it (they
// run in parallel), the others' CPU time beyond a process start (the
// cheapest run's) is shared by the cores.
func TestNominal(t *testing.T) {
	r := &reach{took: []time.Duration{60 * time.Second, 6 * time.Second, 6 * time.Second, time.Second},
		cpu: []time.Duration{time.Second, 3 * time.Second, 5 * time.Second, time.Second}}
	longest, rest := r.nominal([]int{0, 1, 2}, 2)
	if longest != 60*time.Second || rest != 3*time.Second {
		t.Errorf("nominal = %s + %s, want 1m0s + 3s", longest, rest)
	}
	if longest, rest := r.nominal(nil, 2); longest != 0 || rest != 0 {
		t.Errorf("no scenario: %s + %s", longest, rest)
	}
}

// The reaching scenarios of the mutated package's requirements run first,
// the others only after them; together they are all the reaching ones.
func TestSplit(t *testing.T) {
	r := &reach{units: []scenarioUnit{{Tag: "@mut_s1", Tags: "@TA-01 @must"}, {Tag: "@mut_s2"}, {Tag: "@mut_s3", Tags: "@ER-01 @ER-05 @slow"}}}
	own, others := r.split([]int{0, 1, 2}, []string{"ER-05", "TA-09"})
	if r.tagsOf(own) != "@mut_s3" || r.tagsOf(others) != "@mut_s1,@mut_s2" {
		t.Errorf("split = %v, %v", own, others)
	}
}

// A run of some scenarios is given only the feature files that hold them,
// the tagged copies themselves, one folder per set of files.
func TestFeaturesOf(t *testing.T) {
	tagged := filepath.Join(t.TempDir(), "features")
	if err := os.MkdirAll(tagged, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.feature", "b.feature", "c.feature"} {
		if err := os.WriteFile(filepath.Join(tagged, f), []byte("Feature: "+f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := &reach{features: tagged, units: []scenarioUnit{{File: "a.feature"}, {File: "b.feature"}, {File: "a.feature"}, {File: "c.feature"}}}
	dir := r.featuresOf([]int{2, 1, 0})
	got, err := filepath.Glob(filepath.Join(dir, "*.feature"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || filepath.Base(got[0]) != "a.feature" || filepath.Base(got[1]) != "b.feature" {
		t.Fatalf("folder for units 0-2 holds %v, want a.feature and b.feature", got)
	}
	if b, err := os.ReadFile(got[1]); err != nil || string(b) != "Feature: b.feature\n" {
		t.Errorf("b.feature: %q %v, want the tagged copy's text", b, err)
	}
	if again := r.featuresOf([]int{0, 1}); again != dir {
		t.Errorf("the same files gave another folder: %s, then %s", dir, again)
	}
	if other := r.featuresOf([]int{3}); other == dir || other == tagged {
		t.Errorf("c.feature alone: %s (the first set's %s, the whole copy %s)", other, dir, tagged)
	}
}
