package diff

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/spec"
)

func cat(ids ...string) *spec.Catalog {
	c := &spec.Catalog{Version: 1, Areas: []spec.Area{{Prefix: "TA", Name: "Turn"}}}
	for _, id := range ids {
		c.Requirements = append(c.Requirements, spec.Requirement{ID: id, Area: "TA", Title: "title of " + id, Level: "MUST", Class: "must", Profile: "agent-loop"})
	}
	return c
}

func sc(line int, name string, st report.Status, id string) report.ScenarioResult {
	return report.ScenarioResult{File: "a.feature", Line: line, Name: name, Status: st, Requirements: []string{id}, Failure: "why " + name}
}

func TestCompare(t *testing.T) {
	old := report.Build(cat("TA-01", "TA-02", "TA-03", "TA-04"), report.Kernel{Name: "k", Version: "1"}, []report.ScenarioResult{
		sc(3, "one", report.Pass, "TA-01"), sc(9, "two", report.Fail, "TA-02"), sc(12, "three", report.Pass, "TA-03"), sc(20, "gone", report.Pass, "TA-04"),
	}, time.Now(), time.Second)
	// The scenarios moved down their file; "one" now fails, "two" passes,
	// "gone" is gone, "new" is new, TA-04 left the catalog, TA-05 came.
	new := report.Build(cat("TA-01", "TA-02", "TA-03", "TA-05"), report.Kernel{Name: "k", Version: "2"}, []report.ScenarioResult{
		sc(5, "one", report.Fail, "TA-01"), sc(11, "two", report.Pass, "TA-02"), sc(14, "three", report.Pass, "TA-03"), sc(30, "new <b>|x", report.Error, "TA-05"),
	}, time.Now(), time.Second)
	res := Compare("old.json", old, "new.json", new)
	var reqs, scs []string
	for _, c := range res.Requirements {
		reqs = append(reqs, string(c.Kind)+" "+c.Subject+" "+c.Old+">"+c.New)
	}
	for _, c := range res.Scenarios {
		scs = append(scs, string(c.Kind)+" "+c.Subject+" "+c.Old+">"+c.New)
	}
	wantReqs := []string{"regression TA-01 pass>fail", "improvement TA-02 fail>pass", "added TA-05 >error", "removed TA-04 pass>"}
	wantScs := []string{"regression a.feature:5 pass>fail", "improvement a.feature:11 fail>pass", "added a.feature:30 >error", "removed a.feature:20 pass>"}
	if !slices.Equal(reqs, wantReqs) || !slices.Equal(scs, wantScs) {
		t.Fatalf("requirements %v\nscenarios %v", reqs, scs)
	}
	if res.Regressions() != 2 || res.Requirements[0].Why == "" {
		t.Fatalf("regressions %d, why %q", res.Regressions(), res.Requirements[0].Why)
	}
	var txt, md bytes.Buffer
	if err := WriteText(&txt, res); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, res); err != nil {
		t.Fatal(err)
	}
	if i, j := strings.Index(txt.String(), "REGRESSION"), strings.Index(txt.String(), "IMPROVEMENT"); i < 0 || j < i {
		t.Errorf("regressions not first:\n%s", txt.String())
	}
	var html bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert(md.Bytes(), &html); err != nil {
		t.Fatal(err)
	}
	if strings.Count(html.String(), "<table>") != 3 || strings.Contains(html.String(), "<b>") {
		t.Errorf("markdown: 3 tables and no kernel markup expected:\n%s\n%s", md.String(), html.String())
	}
	if same := Compare("a", old, "b", old); len(same.Requirements)+len(same.Scenarios) != 0 || same.Regressions() != 0 {
		t.Fatalf("a report differs from itself: %+v", same)
	}
}
