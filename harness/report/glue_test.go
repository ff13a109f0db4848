package report

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// glueReport is sampleReport's run from a kernel that labels TA-02 (which
// fails) and TA-01 (which passes) glue.
func glueReport(t *testing.T) *Report {
	t.Helper()
	base := sampleReport()
	k := base.Kernel
	k.Glue = map[string]string{"TA-02": "the adapter counts turns, <not> the loop", "TA-01": "the adapter orders the steps"}
	r := Build(testCatalog(), k, base.Scenarios, started, 3*time.Second)
	r.Tool.Version, r.Protocol = "v0.1.0", "conform.wire/v1"
	return r
}

// A glue failure keeps its verdict and its reason, is counted apart from
// the loop's failures in every count, and is named apart in the label.
func TestGlueCounts(t *testing.T) {
	plain, r := sampleReport(), glueReport(t)
	if q := find(t, r, "TA-02"); q.Status != Fail || q.Glue == "" || !q.GlueFail() {
		t.Errorf("TA-02: status %s glue %q, want a labelled fail", q.Status, q.Glue)
	}
	if q := find(t, r, "TA-01"); q.Status != Pass || q.Glue != "the adapter orders the steps" || q.GlueFail() {
		t.Errorf("TA-01: status %s glue %q, want a labelled pass", q.Status, q.Glue)
	}
	if q := find(t, r, "HD-01"); q.Glue != "" {
		t.Errorf("HD-01 labelled %q", q.Glue)
	}
	if got, want := r.Summary.Requirements[Fail], plain.Summary.Requirements[Fail]-1; got != want || r.Summary.GlueFail != 1 {
		t.Errorf("fail %d glue_fail %d, want %d and 1", got, r.Summary.GlueFail, want)
	}
	if ta := r.Summary.ByArea[0]; ta.Counts[Fail] != 0 || ta.GlueFail != 1 {
		t.Errorf("TA area: fail %d glue_fail %d, want 0 and 1", ta.Counts[Fail], ta.GlueFail)
	}
	if r.Compliance.Level != LevelNone || !strings.Contains(r.Compliance.Label, "1 MUST requirement fails in the adapter's glue") {
		t.Errorf("compliance %s %q", r.Compliance.Level, r.Compliance.Label)
	}
	if plain.Summary.GlueFail != 0 || strings.Contains(plain.Compliance.Label, "glue") {
		t.Errorf("a kernel without glue: glue_fail %d, label %q", plain.Summary.GlueFail, plain.Compliance.Label)
	}
	if got := r.Failing(LevelMust); len(got) != len(plain.Failing(LevelMust)) {
		t.Errorf("the CI gate changed with the label: %d failing, want %d", len(got), len(plain.Failing(LevelMust)))
	}
}

// Every format shows the label, the reason and the separate count.
func TestGlueInEveryFormat(t *testing.T) {
	r := glueReport(t)
	data := writeJSON(t, r)
	if err := ValidateJSON(readSchema(t), data); err != nil {
		t.Fatalf("report with glue does not validate: %v", err)
	}
	var back Report
	if err := back.UnmarshalJSON(data); err != nil || back.Summary.GlueFail != 1 || back.Kernel.Glue["TA-02"] == "" {
		t.Errorf("JSON round trip: %v, glue_fail %d, kernel glue %v", err, back.Summary.GlueFail, back.Kernel.Glue)
	}
	if q := find(t, &back, "TA-02"); q.Glue != "the adapter counts turns, <not> the loop" {
		t.Errorf("JSON requirement glue %q", q.Glue)
	}
	var md, text, junit bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&text, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteJUnit(&junit, r); err != nil {
		t.Fatal(err)
	}
	html := string(renderHTML(t, r))
	cases := []struct {
		format, out string
		want        []string
	}{
		{"markdown", md.String(), []string{"❌ fail (glue) |", "| TA | Turn algorithm | 2 | 0 | 0 | 1 | 0 | 0 | 0 | 1 |", "| **Total** | | **2** | **0** | **1** | **1** | **1** | **1** | **0** | **1** |", "**glue**: the adapter counts turns, \\<not\\> the loop", "❌ fail (glue) | `features/turn.feature:40` | glue\\: the adapter counts turns", "✅ pass (glue) | `features/turn.feature:10` | glue\\: the adapter orders the steps |", "`TA-01`, `TA-02`"}},
		{"text", text.String(), []string{"fail (glue)", "(glue: the adapter counts turns, <not> the loop)"}},
		{"junit", junit.String(), []string{`name="glue.TA-02" value="fail (glue): the adapter counts turns, &lt;not&gt; the loop"`, `name="glue.TA-01" value="pass (glue): the adapter orders the steps"`, `name="requirements.glue_fail" value="1"`}},
		{"html", html, []string{`<span class="st fail">fail (glue)</span>`, "<strong>Glue</strong> (the adapter decides this, not the loop): the adapter counts turns, &lt;not&gt; the loop", "<code>TA-01</code>, <code>TA-02</code>"}},
	}
	for _, c := range cases {
		for _, w := range c.want {
			if !strings.Contains(c.out, w) {
				t.Errorf("%s lacks %q", c.format, w)
			}
		}
	}
	var plainMD bytes.Buffer
	if err := WriteMarkdown(&plainMD, sampleReport()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plainMD.String(), "glue") {
		t.Error("a report without glue shows a glue column")
	}
}

// A check not reached because conform's bridge cannot see the agent's hook
// is labelled glue: a requirement left untested only by such checks carries
// the label in every format; one with another check not reached, or judged
// by other checks, does not become glue.
func TestChecksNotReachedThroughGlue(t *testing.T) {
	unseen := CheckResult{Step: `"session-end" was dispatched once`, Line: 12, Requirements: []string{"HD-01"}, Status: NotReached,
		Message: `the bridge sees no "session-end" hook of this agent (bridge.hook_points: none): whether it was dispatched cannot be told (profile glue)`, Glue: true}
	absent := CheckResult{Step: "the final answer turn had no tools", Line: 13, Requirements: []string{"TA-02"}, Status: NotReached, Message: "no final-answer request"}
	passed := CheckResult{Step: "the session ended", Line: 14, Requirements: []string{"TA-01", "HD-01"}, Status: Pass}
	scs := []ScenarioResult{
		{File: "hooks.feature", Line: 10, Name: "unseen", Tags: []string{"@HD-01", "@TA-02"}, Status: NotReached, Checks: []CheckResult{unseen, absent}},
		{File: "turn.feature", Line: 3, Name: "judged elsewhere", Tags: []string{"@TA-01"}, Status: Pass, Checks: []CheckResult{passed, {Step: unseen.Step, Line: 5, Requirements: []string{"TA-01"}, Status: NotReached, Message: unseen.Message, Glue: true}}},
		{File: "turn.feature", Line: 20, Name: "passes", Tags: []string{"@TA-01"}, Status: Pass, Checks: []CheckResult{passed}},
	}
	r := Build(testCatalog(), Kernel{Name: "agent"}, scs, started, time.Second)
	if q := find(t, r, "HD-01"); q.Status != NotTested || q.Glue != unseen.Message || len(q.NotReached) != 1 || !q.NotReached[0].Glue {
		t.Errorf("HD-01: %s glue %q not reached %+v, want not tested, labelled glue", q.Status, q.Glue, q.NotReached)
	}
	if q := find(t, r, "TA-02"); q.Status != NotTested || q.Glue != "" {
		t.Errorf("TA-02: %s glue %q, want not tested without a label (nothing of the bridge's)", q.Status, q.Glue)
	}
	if q := find(t, r, "TA-01"); q.Status != Pass || q.Glue != "" || !strings.Contains(q.Unverified, "1 check not reached (1 of them unseen by conform's bridge: profile glue)") {
		t.Errorf("TA-01: %s glue %q unverified %q, want a partial pass naming the glue", q.Status, q.Glue, q.Unverified)
	}
	data := writeJSON(t, r)
	if err := ValidateJSON(readSchema(t), data); err != nil {
		t.Fatalf("report does not validate: %v", err)
	}
	var md, text bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&text, r); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"json": string(data), "markdown": md.String(), "text": text.String()} {
		if !strings.Contains(out, "HD-01") || !strings.Contains(out, "glue") {
			t.Errorf("%s does not label HD-01 glue:\n%s", name, out)
		}
	}
	if !strings.Contains(md.String(), "| Glue (decided by the adapter, not the loop) | `HD-01` |") {
		t.Errorf("markdown's glue row does not name HD-01:\n%s", md.String())
	}
}
