package frameworks

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentconform/conform/harness/report"
)

var update = flag.Bool("update", false, "rewrite the generated blocks of the judgements and the README table")

func loadAll(t *testing.T) map[string]*report.Report {
	t.Helper()
	out := map[string]*report.Report{}
	for _, f := range Frameworks {
		r, err := Load(".", f.Slug)
		if err != nil {
			t.Fatal(err)
		}
		out[f.Slug] = r
	}
	return out
}

// rewrite puts with in place of the generated block of path, or says the
// committed text is stale.
func rewrite(t *testing.T, path, begin, end, with string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := Block(string(data), begin, end, with)
	if !ok {
		t.Errorf("%s has no generated block (%s … %s)", path, begin, end)
		return
	}
	if got == string(data) {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the figures are stale; run go test ./reports/frameworks -update", path)
}

// Every judgement's figures, and the README table, are the JSON's.
func TestFiguresAreGenerated(t *testing.T) {
	reports := loadAll(t)
	for _, f := range Frameworks {
		rewrite(t, f.Slug+".md", "<!-- figures:", "<!-- /figures -->", Figures(f.Slug, reports[f.Slug]))
	}
	rewrite(t, filepath.Join("..", "..", "README.md"), "<!-- frameworks table:", "<!-- /frameworks table -->", Table(reports))
}

// Every failing requirement is in its judgement's failing table, labelled
// as the report labels it, and nothing else is.
func TestFailingTablesMatchReports(t *testing.T) {
	reports := loadAll(t)
	for _, f := range Frameworks {
		md, err := os.ReadFile(f.Slug + ".md")
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range Check(string(md), reports[f.Slug]) {
			t.Errorf("%s.md: %s", f.Slug, d)
		}
	}
}

// The check fails a table that misses a failure, lists a pass, or labels
// a glue failure as the framework's.
func TestCheckCatchesDrift(t *testing.T) {
	r := &report.Report{Requirements: []report.RequirementResult{
		{ID: "TA-01", Status: report.Fail}, {ID: "TA-25", Status: report.Fail, Glue: "pricing"}, {ID: "PA-01", Status: report.Pass},
	}}
	good := "x\n## Failing requirements\n\n| req | judgement |\n|---|---|\n| TA-01 | framework: x |\n| TA-25 | glue: y |\n"
	if d := Check(good, r); len(d) != 0 {
		t.Errorf("a right table: %v", d)
	}
	for name, md := range map[string]string{
		"missing":  "## Failing requirements\n\n| req | j |\n|---|---|\n| TA-01 | framework |\n",
		"pass":     good + "| PA-01 | framework |\n",
		"mislabel": strings.Replace(good, "glue: y", "framework: y", 1),
		"no table": "nothing here",
		"as glue":  strings.Replace(good, "framework: x", "glue: x", 1),
	} {
		if d := Check("\n"+md, r); len(d) == 0 {
			t.Errorf("%s: no disagreement found", name)
		}
	}
}
