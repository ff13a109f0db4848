package runner

import (
	"strings"
	"testing"

	"github.com/agentconform/conform/spec"
)

func TestSlowScenariosLeftOutUnlessAsked(t *testing.T) {
	cat, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	fast := ScenarioRef{File: "a.feature", Line: 3, Name: "fast", Tags: []string{"@ER-05", "@must"}}
	slow := ScenarioRef{File: "a.feature", Line: 9, Name: "default count", Tags: []string{"@ER-05", "@must", "@slow"}}

	keep, left, warn := leaveOutSlow(cat, []ScenarioRef{fast, slow}, nil)
	if keep == nil || !keep(fast) || keep(slow) {
		t.Fatal("the slow scenario must be left out and the other kept")
	}
	if got := left["ER-05"]; len(got) != 1 || got[0] != "default count" {
		t.Errorf("left out for ER-05: %v", got)
	}
	if !strings.Contains(warn, "a.feature:9") || !strings.Contains(warn, "--slow") {
		t.Errorf("warning %q should name the scenario and the flag", warn)
	}

	// A selection of slow scenarios only is what was asked for: it runs.
	keep, left, warn = leaveOutSlow(cat, []ScenarioRef{slow}, nil)
	if keep != nil || left != nil || warn != "" {
		t.Errorf("a slow-only selection must run: keep %v, left %v, warn %q", keep != nil, left, warn)
	}

	// Another narrowing (a shard) still applies.
	other := func(r ScenarioRef) bool { return r.Line != 3 }
	keep, _, _ = leaveOutSlow(cat, []ScenarioRef{fast, slow, {File: "b.feature", Line: 1, Tags: []string{"@TA-01"}}}, other)
	if keep(fast) || keep(slow) || !keep(ScenarioRef{File: "b.feature", Line: 1}) {
		t.Error("the shard's own predicate must still narrow the run")
	}
}
