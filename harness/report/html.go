package report

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/agentconform/conform/internal/safetext"
	"github.com/agentconform/conform/spec"
)

// WriteHTML writes the report as one self-contained HTML page for people.
// It opens on what failed: the compliance label (and any interrupted,
// selection or warning banner) with the requirement and scenario counts,
// each labelled as such, then "Needs attention", one row per failing,
// erring, unverifiable, partial or observed requirement, failures first.
// Then come the run's facts and counts per area, every requirement of
// every area with its statement and source, in tables a reader can filter
// by status and level, a section per requirement that needs attention with
// its checks and reasons, and one per scenario that did not pass with its
// checks, failure text, the kernel's stderr tail and its recorded message
// exchange drawn as a sequence diagram in inline SVG. Every table scrolls
// sideways on a narrow screen instead of being cut off.
//
// The page loads nothing: no script, stylesheet, font or image from
// anywhere, and its Content-Security-Policy forbids it, so it reads the
// same from a CI artifact as from file://. The filters are pure CSS; without
// them every row is shown. Every string is redacted, then escaped (see
// package safetext); kernel text can add no element and no attribute.
func WriteHTML(w io.Writer, r *Report) error {
	// Every profile's rows: the page looks statements up by ID, and a
	// plugin report's IDs are not in the kernel catalog.
	cat, err := spec.LoadAll()
	if err != nil {
		return err
	}
	return writeHTML(w, r, cat, safetext.EnvironRedactor())
}

// page writes one HTML document.
type page struct {
	b       *bufio.Writer
	r       *Report
	cat     *spec.Catalog
	secrets *safetext.Redactor
	// detailed are the requirements with a section of their own, and
	// scenarioIDs the anchors of the scenarios with one, by reference.
	detailed    map[string]bool
	scenarioIDs map[string]string
}

func writeHTML(w io.Writer, r *Report, cat *spec.Catalog, secrets *safetext.Redactor) error {
	pg := &page{b: bufio.NewWriter(w), r: r, cat: cat, secrets: secrets}
	pg.plan()
	pg.head()
	pg.p("<main>\n")
	pg.attention()
	pg.summary()
	pg.requirements()
	pg.problems()
	pg.scenarios()
	pg.extras()
	pg.allScenarios()
	pg.p("</main>\n<footer>Written by %s. This page is self-contained: it loads no script, stylesheet, font or image; the sequence diagrams are SVG drawn by conform.</footer>\n</body>\n</html>\n",
		pg.line(toolText(r.Tool)))
	return pg.b.Flush()
}

func (pg *page) p(format string, args ...any) { fmt.Fprintf(pg.b, format, args...) }

// text is kernel or harness text as element content; line is the same on
// one line; short is line cut to n runes (after redaction, so no half of a
// secret survives the cut).
func (pg *page) text(s string) string { return safetext.HTML(pg.secrets.Redact(s)) }
func (pg *page) line(s string) string { return safetext.HTML(safetext.Line(pg.secrets.Redact(s))) }
func (pg *page) short(s string, n int) string {
	return safetext.HTML(truncate(safetext.Line(pg.secrets.Redact(s)), n))
}

// anchor makes an id attribute value from harness text (a requirement ID):
// letters, digits and "-" only.
func anchor(prefix, s string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, c := range s {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// statusClass is a status as a class name of the fixed set the stylesheet
// knows; filterStatus is a requirement's status as its filter names it.
func statusClass(s Status) string {
	if validScenario(s) || s == NotTested {
		return string(s)
	}
	return "error"
}

func filterStatus(q RequirementResult) string {
	if q.Status == Pass && q.Partial {
		return "partial"
	}
	return statusClass(q.Status)
}

func levelClass(class string) string {
	switch class {
	case classMust, classShould, classMay, classSeed:
		return class
	}
	return classMust
}

func (pg *page) badge(s Status, partial bool) string {
	if partial && s == Pass {
		return `<span class="st partial">pass (partial)</span>`
	}
	return fmt.Sprintf(`<span class="st %s">%s</span>`, statusClass(s), safetext.HTML(word(s)))
}

func (pg *page) head() {
	r := pg.r
	title := pg.line(kernelTitle(r.Kernel))
	pg.p(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="%s">
<title>Conformance report: %s</title>
<style>
%s</style>
</head>
<body>
<header>
<h1>Conformance report: %s</h1>
`, provenanceLine(r.Tool), title, htmlCSS, title)
	if r.Interrupted {
		pg.p(`<div class="banner bad" role="alert"><strong>Interrupted:</strong> the run was stopped before every scenario ran; %d scenarios were not run and no compliance claim is made.</div>`+"\n", r.Summary.Scenarios[NotRun])
	}
	if r.Selection != "" {
		pg.p(`<div class="banner info"><strong>Selection:</strong> only the scenarios selected by <code>%s</code> ran; a selected run makes no compliance claim.</div>`+"\n", pg.line(r.Selection))
	}
	for _, w := range r.Warnings {
		pg.p(`<div class="banner warn"><strong>Warning:</strong> %s</div>`+"\n", pg.line(w))
	}
	level := LevelNone
	switch r.Compliance.Level {
	case LevelMust, LevelShould, LevelAll:
		level = r.Compliance.Level
	}
	if r.Interrupted || r.Selection != "" {
		level = "claim"
	}
	pg.p(`<div class="compliance"><span class="level lvl-%s">%s</span>%s`+"\n",
		level, pg.line(strings.ToUpper(r.Compliance.Level)), pg.line(r.Compliance.Label))
	nq, qs := requirementCounts(r)
	ns, ss := scenarioTotals(r)
	pg.p(`<p class="totals"><strong>%d requirements</strong> (verdicts): %s.<br><strong>%d scenarios</strong> (the runs that decide them): %s.</p></div>`+"\n",
		nq, safetext.HTML(qs), ns, safetext.HTML(ss))
	pg.p(`<nav><a href="#problems">Needs attention <span class="count">%d</span></a><a href="#summary">Summary</a><a href="#requirements">Requirements <span class="count">%d</span></a>`,
		len(pg.detailed), len(r.Requirements))
	bad := map[string]int{}
	for _, q := range r.Requirements {
		if q.Status == Fail || q.Status == Error {
			bad[q.Area]++
		}
	}
	for _, a := range r.Summary.ByArea {
		pg.p(`<a href="#%s">%s`, anchor("area-", a.Prefix), pg.line(a.Prefix))
		if n := bad[a.Prefix]; n > 0 {
			pg.p(` <span class="count bad" title="%d failing or erring">%d</span>`, n, n)
		}
		pg.p(`</a>`)
	}
	pg.p(`<a href="#details">In detail</a><a href="#scenarios">Scenarios in detail <span class="count">%d</span></a><a href="#all-scenarios">All scenarios <span class="count">%d</span></a></nav>`+"\n</header>\n",
		len(pg.scenarioIDs), len(r.Scenarios))
}

func (pg *page) summary() {
	r := pg.r
	pg.p(`<section id="summary"><h2>Summary</h2>` + "\n<table class=\"facts\">\n")
	row := func(k, v string) { pg.p("<tr><th>%s</th><td>%s</td></tr>\n", k, v) }
	row("Kernel", pg.line(kernelTitle(r.Kernel)))
	row("Declared capabilities", pg.codes(r.Kernel.Capabilities, "none"))
	if len(r.Kernel.Readings) > 0 {
		var rs []string
		for _, k := range slices.Sorted(maps.Keys(r.Kernel.Readings)) {
			rs = append(rs, "<code>"+pg.line(k)+"</code> = <code>"+pg.line(r.Kernel.Readings[k])+"</code>")
		}
		row("Declared readings", strings.Join(rs, ", "))
	}
	if r.hasGlue() {
		row("Glue (decided by the adapter, not the loop)", pg.codes(glueRequirementIDs(r), "none"))
	}
	if r.Kernel.Command != "" {
		row("Command", "<code>"+pg.line(r.Kernel.Command)+"</code>")
	}
	row("Tool", pg.line(toolText(r.Tool)))
	if r.Tool.SuiteDigest != "" {
		row("Suite digest", "<code>"+pg.line(r.Tool.SuiteDigest)+"</code>")
	}
	if r.Protocol != "" {
		row("Protocol", "<code>"+pg.line(r.Protocol)+"</code>")
	}
	if !r.StartedAt.IsZero() {
		row("Started", r.StartedAt.UTC().Format(time.RFC3339))
	}
	row("Duration", r.Duration.Round(time.Millisecond).String())
	row("Requirements", safetext.HTML(requirementsLine(r)))
	row("Scenarios", safetext.HTML(scenariosLine(r)))
	row("Compliance level", "<code>"+pg.line(r.Compliance.Level)+"</code>"+safetext.HTML(completeness(r.Compliance)))
	pg.p("</table>\n<h3>Requirement verdicts by area</h3>\n<table class=\"counts\">\n<thead><tr><th>Area</th><th>Name</th>")
	for _, col := range countColumns {
		pg.p(`<th class="n"><span class="st %s">%s</span></th>`, col, safetext.HTML(columnWord(col)))
	}
	glue := r.hasGlue() // a column of its own: the adapter's failures are not the loop's
	if glue {
		pg.p(`<th class="n"><span class="st fail">%s</span></th>`, glueFailWord)
	}
	pg.p("</tr></thead>\n<tbody>\n")
	cell := func(n int) {
		if n == 0 {
			pg.p(`<td class="n zero">0</td>`)
		} else {
			pg.p(`<td class="n">%d</td>`, n)
		}
	}
	counts := func(c map[Status]int, partial, glueFail int) {
		for _, n := range columnCounts(c, partial) {
			cell(n)
		}
		if glue {
			cell(glueFail)
		}
	}
	partial, total := partialPasses(r)
	for _, a := range r.Summary.ByArea {
		// The name is also the link's title: a phone hides its column.
		pg.p(`<tr><td><a href="#%s" title="%s">%s</a></td><td>%s</td>`, anchor("area-", a.Prefix), pg.line(a.Name), pg.line(a.Prefix), pg.line(a.Name))
		counts(a.Counts, partial[a.Prefix], a.GlueFail)
		pg.p("</tr>\n")
	}
	pg.p("<tr><th>Total</th><th></th>")
	counts(r.Summary.Requirements, total, r.Summary.GlueFail)
	pg.p("</tr>\n</tbody></table>\n</section>\n")
}

func (pg *page) codes(items []string, empty string) string {
	if len(items) == 0 {
		return empty
	}
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = "<code>" + pg.line(s) + "</code>"
	}
	return strings.Join(out, ", ")
}

func (pg *page) requirements() {
	pg.p(`<section id="requirements"><h2>Requirements</h2>` + "\n")
	pg.p(`<form class="filters" aria-label="Filters"><strong>Show status:</strong> `)
	for _, s := range filterStatuses {
		pg.p(`<label><input type="checkbox" id="f-st-%s" checked> <span class="st %s">%s</span></label>`, s, s, strings.ReplaceAll(s, "_", " "))
	}
	pg.p(`<br><strong>Show level:</strong> `)
	for _, l := range filterLevels {
		pg.p(`<label><input type="checkbox" id="f-lv-%s" checked> %s</label>`, l, strings.ToUpper(l))
	}
	pg.p(`<br><span class="hint">The filters hide table rows with CSS alone; in a browser without :has() every row stays visible.</span></form>` + "\n")

	byArea := map[string][]RequirementResult{}
	for _, q := range pg.r.Requirements {
		byArea[q.Area] = append(byArea[q.Area], q)
	}
	for _, a := range pg.r.Summary.ByArea {
		pg.p(`<section id="%s"><h3>%s · %s</h3>`+"\n", anchor("area-", a.Prefix), pg.line(a.Prefix), pg.line(a.Name))
		reqs := byArea[a.Prefix]
		if len(reqs) > 0 && !agentLoop(reqs[0]) {
			pg.p(`<p class="meta">Seed requirements of the separate deterministic-first profile: reported here, never part of the compliance level.</p>` + "\n")
		}
		pg.requirementTable(reqs)
		pg.p("</section>\n")
	}
	pg.p("</section>\n")
}

func (pg *page) requirementTable(reqs []RequirementResult) {
	if len(reqs) == 0 {
		pg.p("<p>No requirements.</p>\n")
		return
	}
	pg.p("<table class=\"reqs\">\n<thead><tr><th>ID</th><th>Level</th><th>Status</th><th>Requirement</th><th>Scenarios</th></tr></thead>\n<tbody>\n")
	for _, q := range reqs {
		id := pg.line(q.ID)
		if pg.detailed[q.ID] {
			id = fmt.Sprintf(`<a href="#%s">%s</a>`, anchor("d-", q.ID), id)
		}
		pg.p(`<tr id="%s" class="st-%s lv-%s"><td class="mono">%s</td><td>%s</td><td>%s</td><td><strong>%s</strong>`,
			anchor("r-", q.ID), filterStatus(q), levelClass(q.Class), id, pg.line(q.Level), pg.badge(q.Status, q.Partial), pg.line(q.Title))
		pg.catalogText(q.ID)
		if q.Glue != "" {
			pg.p(`<p class="note"><strong>Glue</strong> (the adapter decides this, not the loop): %s</p>`, pg.short(q.Glue, 300))
		}
		switch {
		case q.Partial:
			pg.p(`<p class="note">Not verified: %s</p>`, pg.short(q.Unverified, 300))
		case q.Status != Pass && q.Status != NotTested && q.Reason != "":
			pg.p(`<p class="note">%s</p>`, pg.short(firstLine(pg.secrets.Redact(q.Reason), ""), 300))
		case q.Status == NotTested && q.Reason != "":
			pg.p(`<p class="note">%s</p>`, pg.short(q.Reason, 300))
		}
		pg.p("</td><td>%s</td></tr>\n", pg.scenarioLinks(q.Scenarios))
	}
	pg.p("</tbody></table>\n")
}

// catalogText writes a requirement's statement and source from the catalog.
func (pg *page) catalogText(id string) {
	if pg.cat == nil {
		return
	}
	c, ok := pg.cat.Get(id)
	if !ok {
		return
	}
	pg.p(`<p class="stmt">%s</p><p class="src">Source: <code>%s</code>`, pg.line(c.Statement), pg.line(c.Source))
	if c.Capability != "" {
		pg.p(` · optional capability <code>%s</code>`, pg.line(c.Capability))
	}
	pg.p("</p>")
}

// scenarioLinks lists scenario references, each a link to its section
// when it has one.
func (pg *page) scenarioLinks(refs []string) string {
	out := make([]string, len(refs))
	for i, ref := range refs {
		code := "<code>" + pg.line(ref) + "</code>"
		if id, ok := pg.scenarioIDs[ref]; ok {
			code = fmt.Sprintf(`<a href="#%s">%s</a>`, id, code)
		}
		out[i] = code
	}
	return strings.Join(out, "<br>")
}
