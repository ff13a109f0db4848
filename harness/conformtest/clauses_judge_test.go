package conformtest

import (
	"strings"
	"testing"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/spec"
)

// The clause judge on a synthetic run: it must find each way a clause can
// be short of proof, or the map could claim coverage it does not have.
func TestClauseJudge(t *testing.T) {
	root := report.ScenarioResult{File: "bounds.feature", Line: 3, Name: "root", Checks: []report.CheckResult{
		{Step: "the kernel ran 2 ordinary turns", Requirements: []string{"TA-02"}, Status: report.Pass},
		{Step: "exactly one final-answer turn followed", Requirements: []string{"TA-08"}, Status: report.Pass},
		{Step: "the kernel ran 9 ordinary turns", Requirements: []string{"TA-02"}, Status: report.Fail},
	}}
	child := report.ScenarioResult{File: "subagents.feature", Line: 9, Name: "tree", Checks: []report.CheckResult{
		{Step: "the \"w\" child ran 1 ordinary turn", Requirements: []string{"TA-02"}, Status: report.Pass},
	}}
	x := clauseCtx{byName: map[string]*report.ScenarioResult{"root": &root, "tree": &child}, leftOut: map[string][]string{"TA-02": {"slow one"}}}
	side := func(checks []string, scens ...string) spec.Side {
		return spec.Side{When: "w", Checks: checks, Scenarios: scens}
	}
	ok := []string{"ordinary turn"}
	for _, tc := range []struct {
		name         string
		c            spec.Clause
		missing, bad string // substrings expected, "" for none
	}{
		{"complete value", spec.Clause{Requirement: "TA-02", Kind: "value", Sides: []spec.Side{side(ok, "root", "slow one")}}, "", ""},
		{"complete per-session", spec.Clause{Requirement: "TA-02", Kind: "value", PerSession: true, Sides: []spec.Side{side(ok, "root")}, Tree: &spec.Side{When: "child", Checks: ok, Scenarios: []string{"tree"}}}, "", ""},
		{"no check", spec.Clause{Requirement: "TA-02", Kind: "value", Sides: []spec.Side{side(nil, "root")}}, "has no check", ""},
		{"one side of a condition", spec.Clause{Requirement: "TA-02", Kind: "condition", Sides: []spec.Side{side(ok, "root"), side(ok)}}, "occurs in no scenario", ""},
		{"check of another requirement", spec.Clause{Requirement: "TA-02", Kind: "value", Sides: []spec.Side{side([]string{"final-answer turn"}, "root")}}, "no passing TA-02 check", ""},
		{"failing check only", spec.Clause{Requirement: "TA-02", Kind: "value", Sides: []spec.Side{side([]string{"ran 9"}, "root")}}, "no passing TA-02 check", ""},
		{"per-session never in a tree", spec.Clause{Requirement: "TA-02", Kind: "value", PerSession: true, Sides: []spec.Side{side(ok, "root")}}, "no tree side", ""},
		{"tree side in a root scenario", spec.Clause{Requirement: "TA-02", Kind: "value", PerSession: true, Sides: []spec.Side{side(ok, "root")}, Tree: &spec.Side{When: "child", Checks: ok, Scenarios: []string{"root"}}}, "", "no child session"},
		{"unknown scenario", spec.Clause{Requirement: "TA-02", Kind: "value", Sides: []spec.Side{side(ok, "nowhere")}}, "", "does not exist"},
	} {
		r := x.judge(tc.c)
		m, b := strings.Join(r.missing, "; "), strings.Join(r.wrong, "; ")
		if (tc.missing == "") != (m == "") || !strings.Contains(m, tc.missing) {
			t.Errorf("%s: missing %q, want %q", tc.name, m, tc.missing)
		}
		if (tc.bad == "") != (b == "") || !strings.Contains(b, tc.bad) {
			t.Errorf("%s: wrong %q, want %q", tc.name, b, tc.bad)
		}
	}
}
