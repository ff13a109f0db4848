package agents

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentconform/conform/harness/report"
)

// sample is a report with one agent failure (TA-01), one glue failure
// (TA-02) and one pass (TA-03), judged right.
func sample() (*Judgements, *report.Report, *Profile) {
	r := &report.Report{Requirements: []report.RequirementResult{
		{ID: "TA-01", Status: report.Fail},
		{ID: "TA-02", Status: report.Fail, Glue: "the bridge cannot"},
		{ID: "TA-03", Status: report.Pass},
	}}
	p := &Profile{}
	p.Glue = append(p.Glue, GlueNote{"TA-02", "the bridge cannot"})
	j := &Judgements{Agent: "x", Failing: []Judgement{
		{Requirement: "TA-01", Class: ClassTrue, Why: "the agent does not", Evidence: []Evidence{{Kind: EvSource, Ref: "src/loop.ts:12"}, {Kind: EvReport, Ref: "bounds.feature:3"}}},
		{Requirement: "TA-02", Class: ClassGlue, Why: "the bridge cannot", Evidence: []Evidence{{Kind: EvBridge, Ref: "conform@ea5954c harness/bridge/kernel.go:60"}}},
	}, Passes: []PassCheck{{Requirement: "TA-03", By: "agent", Why: "it did it"}}}
	return j, r, p
}

func TestCheck(t *testing.T) {
	open, closed := Agent{Slug: "x", Open: true}, Agent{Slug: "x"}
	cases := []struct {
		name  string
		agent Agent
		edit  func(j *Judgements, r *report.Report, p *Profile)
		want  string // "" for no complaint
	}{
		{"judged right", open, func(*Judgements, *report.Report, *Profile) {}, ""},
		{"a failing verdict without a judgement", open, func(j *Judgements, _ *report.Report, _ *Profile) { j.Failing = j.Failing[:1] }, "TA-02 fail in the report but has no judgement"},
		{"a judgement of a requirement that passes", open, func(j *Judgements, _ *report.Report, _ *Profile) {
			j.Failing = append(j.Failing, Judgement{Requirement: "TA-03", Class: ClassTrue, Why: "it does not", Evidence: []Evidence{{Kind: EvSource, Ref: "a.go:1"}}})
		}, "TA-03 is judged as failing, the report says pass"},
		{"glue judged but not labelled in the report", open, func(_ *Judgements, r *report.Report, _ *Profile) { r.Requirements[1].Glue = "" }, "does not label it glue"},
		{"glue labelled but judged a finding", open, func(j *Judgements, _ *report.Report, _ *Profile) {
			j.Failing[1].Class = ClassTrue
			j.Failing[1].Evidence = append(j.Failing[1].Evidence, Evidence{Kind: EvSource, Ref: "a.go:1"})
		}, "labelled glue in the report"},
		{"glue not declared by the profile", open, func(_ *Judgements, _ *report.Report, p *Profile) { p.Glue = nil }, "neither the profile nor"},
		{"glue of the run, fixed in the profile since", open, func(j *Judgements, _ *report.Report, p *Profile) { j.RunGlue, p.Glue = p.Glue, nil }, ""},
		{"an open agent's finding without its source", open, func(j *Judgements, _ *report.Report, _ *Profile) { j.Failing[0].Evidence = j.Failing[0].Evidence[1:] }, "file and line of its pinned source"},
		{"a closed agent's finding without the recorded behaviour", closed, func(j *Judgements, _ *report.Report, _ *Profile) { j.Failing[0].Evidence = j.Failing[0].Evidence[:1] }, "recorded behaviour"},
		{"a source reference without a line", open, func(j *Judgements, _ *report.Report, _ *Profile) { j.Failing[0].Evidence[0].Ref = "src/loop.ts" }, "names no file:line"},
		{"a bridge line at no commit", open, func(j *Judgements, _ *report.Report, _ *Profile) {
			j.Failing[1].Evidence[0].Ref = "harness/bridge/kernel.go:60"
		}, "names no commit"},
		{"a suite fix without its regression test", open, func(j *Judgements, _ *report.Report, _ *Profile) { j.Failing[0].Class = ClassSuite }, "regression test"},
		{"a pass sample of a failing requirement", open, func(j *Judgements, _ *report.Report, _ *Profile) { j.Passes[0].Requirement = "TA-01" }, "pass sample TA-01"},
		{"a stale judgement", open, func(j *Judgements, _ *report.Report, _ *Profile) { j.SuiteDigest = "sha256:old" }, "judge the new report"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j, r, p := sample()
			c.edit(j, r, p)
			got := strings.Join(Check(c.agent, j, r, p), "\n")
			if c.want == "" && got != "" {
				t.Fatalf("want no complaint, got:\n%s", got)
			}
			if !strings.Contains(got, c.want) {
				t.Fatalf("want a complaint containing %q, got:\n%s", c.want, got)
			}
		})
	}
}

// A requirement belongs to the area most of its scenarios' feature files
// belong to; deterministic-first rows to none.
func TestAreaOf(t *testing.T) {
	for _, c := range []struct {
		scenarios []string
		want      string
	}{
		{[]string{"concurrency.feature:31", "model_stream.feature:12", "turn_order.feature:13", "turn_order.feature:38"}, "turn order"},
		{[]string{"bounds_cost.feature:5"}, "cost"},
		{[]string{"hook_tracing.feature:27"}, "trace"},
		{[]string{"hook_veto.feature:13"}, "hooks"},
		{[]string{"plan_unanswered.feature:21", "hook_veto.feature:62", "plan_apply.feature:31"}, "plan/apply"},
	} {
		i := AreaOf(report.RequirementResult{Scenarios: c.scenarios})
		if i < 0 || Areas[i].Name != c.want {
			t.Errorf("%v: area %d, want %s", c.scenarios, i, c.want)
		}
	}
	if i := AreaOf(report.RequirementResult{Scenarios: []string{"deterministic_first.feature:9"}}); i != -1 {
		t.Errorf("deterministic-first: area %d, want none", i)
	}
}

// Every bridge line a judgement cites exists at the commit it names: the
// file is in that commit and has the lines. In a shallow clone the older
// commits are absent and nothing can be read.
func TestBridgeEvidenceExistsAtItsCommit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	if out, err := exec.Command(git, "rev-parse", "--is-shallow-repository").Output(); err != nil || strings.TrimSpace(string(out)) != "false" {
		t.Skipf("not a whole git clone (%v %s): the pinned commits cannot be read", err, out)
	}
	files, _ := filepath.Glob("*.judgements.json")
	lines := map[string]int{} // commit:path -> lines
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var j Judgements
		if err := json.Unmarshal(b, &j); err != nil {
			t.Fatal(err)
		}
		for _, g := range j.Failing {
			for _, e := range g.Evidence {
				m := bridgeRef.FindStringSubmatch(e.Ref)
				if e.Kind != EvBridge || m == nil {
					continue
				}
				key := m[1] + ":" + m[2]
				n, ok := lines[key]
				if !ok {
					// Paths are the repository's, and the test runs in reports/agents.
					out, err := exec.Command(git, "show", key).Output()
					if err != nil {
						t.Errorf("%s %s: %s is not in the repository: %v", f, g.Requirement, key, err)
						lines[key] = -1
						continue
					}
					n = strings.Count(string(out), "\n") + 1
					lines[key] = n
				}
				last, _ := strconv.Atoi(m[3])
				if m[4] != "" {
					last, _ = strconv.Atoi(m[4])
				}
				if n >= 0 && last > n {
					t.Errorf("%s %s: %s has %d lines, the evidence cites line %d", f, g.Requirement, key, n, last)
				}
			}
		}
	}
}
