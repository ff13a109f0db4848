package report

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"
)

const testDigest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// outlineReport fails TA-02 with one check that says the same in three
// Examples rows of one outline, and once more elsewhere.
func outlineReport() *Report {
	r := richReport()
	var scs []ScenarioResult
	for _, row := range []int{30, 31, 32} {
		scs = append(scs, ScenarioResult{File: "hook_failures.feature", Line: row, Name: "a failing hook stops the turn", Status: Fail, Requirements: []string{"TA-02"},
			Checks: []CheckResult{{Step: `an event attributable to hook subscriber "O1" was reported`, Line: 26, Requirements: []string{"TA-02"}, Status: Fail, Message: `expected an event attributable to "O1", the kernel reported none`}}})
	}
	r.Scenarios = append(r.Scenarios, scs...)
	for i, q := range r.Requirements {
		if q.ID == "TA-02" {
			for _, s := range scs {
				q.Failures = append(q.Failures, CheckRef{Scenario: s.Ref(), Line: 26, Step: s.Checks[0].Step, Message: s.Checks[0].Message})
				q.Scenarios = append(q.Scenarios, s.Ref())
			}
			r.Requirements[i] = q
		}
	}
	r.Tool = Tool{Name: "conform", Version: "0.1.0", Commit: "1a2b3c4d5e6f", SuiteDigest: testDigest}
	return r
}

func TestFoldChecks(t *testing.T) {
	refs := []CheckRef{
		{Scenario: "a.feature:30", Line: 26, Step: "s", Message: "m"},
		{Scenario: "b.feature:5", Line: 9, Step: "other", Message: "m"},
		{Scenario: "a.feature:31", Line: 26, Step: "s", Message: "m"},
		{Scenario: "a.feature:40", Line: 44, Step: "s", Message: "m"},
	}
	gs := foldChecks(refs)
	if len(gs) != 2 || len(gs[0].Also) != 2 || gs[1].Step != "other" {
		t.Fatalf("groups %+v", gs)
	}
	if got, want := gs[0].sameIn(), "the same in 3 scenarios: a.feature:30 (Examples row), a.feature:31 (Examples row), a.feature:40"; got != want {
		t.Errorf("sameIn = %q, want %q", got, want)
	}
	if gs[1].sameIn() != "" {
		t.Errorf("a group of one says %q", gs[1].sameIn())
	}
	// Messages that differ only in the harness's session IDs fold too, each
	// place naming its session.
	gs = foldChecks([]CheckRef{
		{Scenario: "p.feature:283", Line: 276, Step: "asked once", Message: `asked about "save" 1 time in session conform-s242, it was asked 0 times`},
		{Scenario: "p.feature:284", Line: 276, Step: "asked once", Message: `asked about "save" 1 time in session conform-s243-second, it was asked 0 times`},
		{Scenario: "p.feature:285", Line: 276, Step: "asked once", Message: `asked about "save" 1 time in session conform-s244, it was asked 3 times`},
	})
	if len(gs) != 2 || len(gs[0].Also) != 1 {
		t.Fatalf("groups %+v", gs)
	}
	if got, want := gs[0].sameIn(), "the same in 2 scenarios: p.feature:283 (Examples row, session conform-s242), p.feature:284 (Examples row, session conform-s243-second)"; got != want {
		t.Errorf("sameIn = %q, want %q", got, want)
	}
}

// TestFoldedInEveryWriter: the text, Markdown and HTML writers show an
// identical failing check once, with the scenarios that tell its
// occurrences apart.
func TestFoldedInEveryWriter(t *testing.T) {
	r := outlineReport()
	var text, md bytes.Buffer
	if err := writeText(&text, r, nil); err != nil {
		t.Fatal(err)
	}
	if err := writeMarkdown(&md, r, nil); err != nil {
		t.Fatal(err)
	}
	page := string(renderHTML(t, r))
	msg := `expected an event attributable to "O1", the kernel reported none`
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		if n := strings.Count(out, msg); n != 1 {
			t.Errorf("%s shows the repeated message %d times, want once:\n%s", name, n, out)
		}
		if !strings.Contains(out, "hook_failures.feature:32") || !strings.Contains(out, "(Examples row)") {
			t.Errorf("%s does not name the Examples rows:\n%s", name, out)
		}
	}
	if !strings.Contains(text.String(), "(the same in 3 scenarios: hook_failures.feature:30 (Examples row), hook_failures.feature:31 (Examples row), hook_failures.feature:32 (Examples row))") {
		t.Errorf("text:\n%s", text.String())
	}
	details := page[strings.Index(page, `<section id="details">`):]
	details = details[:strings.Index(details, "</section>")]
	if n := strings.Count(details, "the kernel reported none"); n != 1 {
		t.Errorf("the HTML section shows the repeated message %d times, want once", n)
	}
	if !strings.Contains(details, "The same in 3 scenarios: ") {
		t.Error("the HTML section does not name the scenarios of the folded check")
	}
}

// TestHTMLOpensOnFailures: the verdict, then Needs attention with the
// failing rows before any passing one; counts in the navigation, the
// requirement and scenario counts labelled, a partial column in the area
// table, tables that scroll on a narrow screen.
func TestHTMLOpensOnFailures(t *testing.T) {
	r := richReport()
	page := string(renderHTML(t, r))
	order := []string{`<div class="compliance">`, `<nav>`, `<section id="problems">`, `<section id="summary">`, `<section id="requirements">`, `<section id="details">`, `<section id="scenarios">`, `<section id="all-scenarios">`}
	last := -1
	for _, s := range order {
		i := strings.Index(page, s)
		if i < 0 || i < last {
			t.Fatalf("%q at %d, after %d: the page is not in the order %q", s, i, last, order)
		}
		last = i
	}
	firstFail := regexp.MustCompile(`<tr [^>]*class="st-(fail|error) `).FindStringIndex(page)
	firstPass := regexp.MustCompile(`<tr [^>]*class="st-pass `).FindStringIndex(page)
	if firstFail == nil || firstPass == nil || firstFail[0] > firstPass[0] {
		t.Errorf("a passing row comes before the first failing one (%v, %v)", firstFail, firstPass)
	}
	attention := page[strings.Index(page, `<section id="problems">`):strings.Index(page, `<section id="summary">`)]
	if a, b := strings.Index(attention, `href="#d-TA-02"`), strings.Index(attention, `href="#d-TA-08"`); a < 0 || b < 0 {
		t.Errorf("Needs attention lacks the failing TA-02 or the partial TA-08:\n%s", attention)
	} else if a > b {
		t.Error("a partial pass is listed before a failure")
	}
	for _, want := range []string{
		`<a href="#problems">Needs attention <span class="count">5</span></a>`,
		`<a href="#requirements">Requirements <span class="count">`,
		`<strong>106 requirements</strong> (verdicts): `,
		` scenarios</strong> (the runs that decide them): `,
		`<th class="n"><span class="st partial">pass (partial)</span></th>`,
		`@media (max-width:760px)`,
		`table{display:block;overflow-x:auto`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if !regexp.MustCompile(`<a href="#area-TA">TA <span class="count bad" title="2 failing or erring">2</span></a>`).MatchString(page) {
		t.Error("the area link does not count its failing requirements")
	}
}

// TestCountsLabelled: the text, Markdown and HTML writers say which counts
// are requirements and which scenarios, and count partial passes apart.
func TestCountsLabelled(t *testing.T) {
	r := richReport()
	n, parts := requirementCounts(r)
	if n != len(r.Requirements) || !strings.Contains(parts, "1 pass (partial)") {
		t.Errorf("requirement counts %d %q", n, parts)
	}
	if got := requirementsLine(r); !strings.HasPrefix(got, "106 requirements: ") {
		t.Errorf("requirementsLine = %q", got)
	}
	if got := scenariosLine(r); !strings.HasPrefix(got, "7 scenarios: ") {
		t.Errorf("scenariosLine = %q", got)
	}
	var text bytes.Buffer
	if err := writeText(&text, r, nil); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^\s*area\s+pass\s+partial\s+fail\s+error`).MatchString(text.String()) {
		t.Errorf("the terminal area table has no partial column:\n%s", text.String())
	}
}

// TestProvenanceInEveryFormat: each format names the conform and the suite,
// and SuiteDigestOf reads the digest back from each.
func TestProvenanceInEveryFormat(t *testing.T) {
	r := outlineReport()
	writers := map[string]func(*bytes.Buffer) error{
		"JSON report": func(b *bytes.Buffer) error { return WriteJSON(b, r) },
		"Markdown":    func(b *bytes.Buffer) error { return writeMarkdown(b, r, nil) },
		"HTML":        func(b *bytes.Buffer) error { b.Write(renderHTML(t, r)); return nil },
		"JUnit XML":   func(b *bytes.Buffer) error { return writeJUnit(b, r, nil) },
		"SVG badge":   func(b *bytes.Buffer) error { return WriteBadge(b, r) },
	}
	for format, write := range writers {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		d, got, err := SuiteDigestOf(b.Bytes())
		if err != nil || d != testDigest || got != format {
			t.Errorf("%s: SuiteDigestOf = %q, %q, %v", format, d, got, err)
		}
		if format != "SVG badge" && format != "JUnit XML" && format != "JSON report" && !strings.Contains(b.String(), "commit 1a2b3c4d5e6f") {
			t.Errorf("%s does not name the commit", format)
		}
	}
	var badge bytes.Buffer
	if err := WriteBadgeJSON(&badge, r); err != nil {
		t.Fatal(err)
	}
	if _, _, err := SuiteDigestOf(badge.Bytes()); err == nil || errors.Is(err, ErrNoProvenance) {
		t.Errorf("badge endpoint JSON: %v, want an error saying it has no room for one", err)
	}
	// A report without a digest, and one whose kernel names a digest of its
	// own: neither may pass for a report of the suite.
	r.Tool.SuiteDigest = ""
	r.Kernel.Name = "evil suite-digest " + testDigest + " -->"
	r.Warnings = append(r.Warnings, "| Suite digest | `"+testDigest+"` |")
	for format, write := range writers {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		if d, _, err := SuiteDigestOf(b.Bytes()); !errors.Is(err, ErrNoProvenance) {
			t.Errorf("%s without a digest: SuiteDigestOf = %q, %v; want ErrNoProvenance", format, d, err)
		}
	}
	if _, _, err := SuiteDigestOf([]byte("hello")); err == nil {
		t.Error("a text file passed for a report")
	}
}
