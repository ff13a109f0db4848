package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentconform/conform/internal/safetext"
)

// glyph is a status as a glyph followed by its word, so that the meaning
// survives where the glyph does not render.
func glyph(s Status) string {
	switch s {
	case Pass:
		return "✅ pass"
	case Fail:
		return "❌ fail"
	case Error:
		return "⛔ error"
	case Skipped:
		return "⏭️ skipped"
	case Unverifiable:
		return "❔ unverifiable"
	case NotTested:
		return "➖ not tested"
	case NotReached:
		return "↪️ not reached"
	case NotRun:
		return "⏸️ not run"
	}
	return "❓ " + string(s)
}

// word is a status as plain words.
func word(s Status) string {
	switch s {
	case NotTested:
		return "not tested"
	case NotReached:
		return "not reached"
	case NotRun:
		return "not run"
	}
	return string(s)
}

// WriteMarkdown writes the report for people, e.g. as a CI step summary: the
// compliance label, counts per area, every failing or erroring requirement
// with its reason and covering scenarios, and the full requirement table,
// deterministic-first seed rows under their own heading.
//
// Every string is placed as data: secrets of conform's environment are
// redacted and text is escaped (see package safetext), so no kernel can add
// markup, links, images or HTML, or end a code block early.
func WriteMarkdown(w io.Writer, r *Report) error {
	return writeMarkdown(w, r, safetext.EnvironRedactor())
}

func writeMarkdown(w io.Writer, r *Report, secrets *safetext.Redactor) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	m := mdText{secrets}

	p("# Conformance report: %s\n\n", m.inline(kernelTitle(r.Kernel)))
	if r.Interrupted {
		p("> **Interrupted:** the run was stopped before every scenario ran; %d scenarios were not run and no compliance claim is made.\n\n", r.Summary.Scenarios[NotRun])
	}
	p("**Compliance: %s**\n\n", m.inline(r.Compliance.Label))
	p("**%s**  \n**%s**\n\n", m.inline(requirementsLine(r)), m.inline(scenariosLine(r)))
	for _, w := range r.Warnings {
		p("> **Warning:** %s\n\n", m.inline(w))
	}

	p("## Failing requirements\n\n")
	var failing []RequirementResult
	for _, q := range r.Requirements {
		if q.Status == Fail || q.Status == Error {
			failing = append(failing, q)
		}
	}
	if len(failing) == 0 {
		p("No requirement fails or ends in error.\n\n")
	}
	for _, q := range failing {
		p("- %s **%s** · %s · %s", m.inline(glyph(q.Status)), m.inline(q.ID), m.inline(q.Level), m.inline(q.Title))
		if !agentLoop(q) {
			p(" · deterministic-first profile")
		}
		if q.Glue != "" {
			p(" · **glue**: %s", m.inline(q.Glue))
		}
		p("\n  Scenarios: %s\n\n", m.codeList(q.Scenarios, "none", safetext.MarkdownCode))
		if len(q.Failures) == 0 {
			p("%s\n", m.fence(q.Reason, "  "))
			continue
		}
		groups := foldChecks(q.Failures)
		for i, c := range groups {
			if i == maxChecksListed {
				p("  - … and %d more failing checks (see the JSON report)\n\n", len(groups)-i)
				break
			}
			p("  - %s %s\n\n%s\n", m.code(c.Where()), m.inline(c.Step), m.fence(c.Message, "    "))
			if len(c.Also) > 0 {
				p("    The same in %d scenarios: %s\n\n", len(c.Also)+1, m.places(c))
			}
		}
	}
	p("## The run\n\n")
	p("| | |\n|---|---|\n")
	p("| Kernel | %s |\n", m.inline(kernelTitle(r.Kernel)))
	p("| Declared capabilities | %s |\n", m.codeList(r.Kernel.Capabilities, "none", safetext.MarkdownCellCode))
	if r.hasGlue() {
		p("| Glue (decided by the adapter, not the loop) | %s |\n", m.codeList(glueRequirementIDs(r), "none", safetext.MarkdownCellCode))
	}
	if r.Kernel.Command != "" {
		p("| Command | %s |\n", m.code(r.Kernel.Command))
	}
	p("| Tool | %s |\n", m.inline(toolText(r.Tool)))
	if r.Tool.SuiteDigest != "" {
		// conform report check reads this row.
		p("| Suite digest | %s |\n", m.code(provenanceToken(r.Tool.SuiteDigest)))
	}
	if r.Protocol != "" {
		p("| Protocol | %s |\n", m.code(r.Protocol))
	}
	if !r.StartedAt.IsZero() {
		p("| Started | %s |\n", r.StartedAt.UTC().Format(time.RFC3339))
	}
	p("| Duration | %s |\n", r.Duration.Round(time.Millisecond))
	p("| Requirements | %s |\n", m.inline(requirementsLine(r)))
	p("| Scenarios | %s |\n", m.inline(scenariosLine(r)))
	p("| Compliance level | %s%s |\n\n", m.code(r.Compliance.Level), completeness(r.Compliance))

	p("## Requirement verdicts by area\n\n")
	p("| Area | Name |")
	for _, col := range countColumns {
		if col == "partial" {
			p(" %s (partial) |", glyph(Pass))
		} else {
			p(" %s |", glyph(Status(col)))
		}
	}
	glue := r.hasGlue() // a column of its own: the adapter's failures are not the loop's
	if glue {
		p(" ❌ %s |", glueFailWord)
	}
	p("\n|---|---|")
	for range countColumns {
		p("--:|")
	}
	if glue {
		p("--:|")
	}
	p("\n")
	partial, total := partialPasses(r)
	for _, a := range r.Summary.ByArea {
		p("| %s | %s |", m.inline(a.Prefix), m.inline(a.Name))
		for _, n := range columnCounts(a.Counts, partial[a.Prefix]) {
			p(" %d |", n)
		}
		if glue {
			p(" %d |", a.GlueFail)
		}
		p("\n")
	}
	p("| **Total** | |")
	for _, n := range columnCounts(r.Summary.Requirements, total) {
		p(" **%d** |", n)
	}
	if glue {
		p(" **%d** |", r.Summary.GlueFail)
	}
	p("\n\n")

	m.failingScenarios(p, r)
	m.extras(p, r)

	var agent, seeds []RequirementResult
	for _, q := range r.Requirements {
		if agentLoop(q) {
			agent = append(agent, q)
		} else {
			seeds = append(seeds, q)
		}
	}
	p("## Requirements\n\n")
	m.requirementTable(p, agent)
	if len(seeds) > 0 {
		p("## Deterministic-first profile\n\n")
		p("Seed requirements of the separate deterministic-first profile. They are reported here but do not affect the compliance level.\n\n")
		m.requirementTable(p, seeds)
	}
	return b.Flush()
}

func (m mdText) requirementTable(p func(string, ...any), reqs []RequirementResult) {
	if len(reqs) == 0 {
		p("No requirements.\n\n")
		return
	}
	p("| ID | Title | Level | Status | Scenarios | Note |\n|---|---|---|---|---|---|\n")
	for _, q := range reqs {
		note := ""
		if q.Status != Pass && q.Status != NotTested {
			// Redacted before the cut, so that half a secret cannot remain.
			note = m.inline(truncate(firstLine(m.secrets.Redact(q.Reason), ""), 120))
		}
		status := glyph(q.Status)
		if q.Partial {
			status += " (partial)"
			note = m.inline(truncate("not verified: "+m.secrets.Redact(q.Unverified), 120))
		}
		if q.Glue != "" {
			status += " (glue)"
			glue := m.inline(truncate("glue: "+m.secrets.Redact(q.Glue), 120))
			if note != "" {
				glue += " · " + note
			}
			note = glue
		}
		p("| %s | %s | %s | %s | %s | %s |\n", m.inline(q.ID), m.inline(q.Title), m.inline(q.Level), m.inline(status), m.scenarioCell(q.Scenarios), note)
	}
	p("\n")
}

// scenarioCell lists up to five scenarios and says how many more there are.
func (m mdText) scenarioCell(refs []string) string {
	const limit = 5
	if len(refs) <= limit {
		return m.codeList(refs, "", safetext.MarkdownCellCode)
	}
	return m.codeList(refs[:limit], "", safetext.MarkdownCellCode) + fmt.Sprintf(" and %d more", len(refs)-limit)
}

func kernelTitle(k Kernel) string {
	t := strings.TrimSpace(k.Name + " " + k.Version)
	if t == "" {
		return "unnamed kernel"
	}
	return t
}

func scenarioCounts(r *Report) string {
	total, parts := scenarioTotals(r)
	return fmt.Sprintf("%d (%s)", total, parts)
}

func completeness(c Compliance) string {
	if c.Complete {
		return ", complete"
	}
	return fmt.Sprintf(", incomplete: %d not tested, %d not verifiable from outside", c.NotTested, c.Unverifiable)
}

// mdText places strings in Markdown: each is redacted, then escaped for
// where it goes. Every string goes through it, the harness's own included,
// since the catalog and feature files are text as well.
type mdText struct{ secrets *safetext.Redactor }

// inline is for prose, headings and table cells.
func (m mdText) inline(s string) string {
	return safetext.MarkdownInline(m.secrets.Redact(s))
}

// code is an inline code span that is safe in a table cell.
func (m mdText) code(s string) string {
	return safetext.MarkdownCellCode(m.secrets.Redact(s))
}

// codeList is items as code spans made by code (MarkdownCode in prose,
// MarkdownCellCode in a table cell), or empty when there are none.
func (m mdText) codeList(items []string, empty string, code func(string) string) string {
	if len(items) == 0 {
		return empty
	}
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = code(m.secrets.Redact(s))
	}
	return strings.Join(out, ", ")
}

// places lists the scenarios of a folded check as code spans.
func (m mdText) places(g checkGroup) string {
	var out []string
	for _, c := range g.members() {
		s := m.code(c.Scenario)
		if p := place(c); p != c.Scenario {
			s += strings.TrimPrefix(p, c.Scenario)
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

// fence is a fenced code block indented by indent.
func (m mdText) fence(s, indent string) string {
	return safetext.MarkdownFence(m.secrets.Redact(s), indent)
}

func truncate(s string, n int) string {
	runes := []rune(s)
	if len(runes) <= n {
		return s
	}
	return string(runes[:n-1]) + "…"
}

// extras writes the sections that only some runs have: partial passes,
// observations and the stability of repeated runs.
func (m mdText) extras(p func(string, ...any), r *Report) {
	var partial []RequirementResult
	for _, q := range r.Requirements {
		if q.Status == Pass && q.Partial {
			partial = append(partial, q)
		}
	}
	if len(partial) > 0 {
		p("## Partially verified\n\nThese pass, but not every clause was checked.\n\n| ID | Title | Not verified |\n|---|---|---|\n")
		for _, q := range partial {
			p("| %s | %s | %s |\n", m.inline(q.ID), m.inline(q.Title), m.inline(q.Unverified))
		}
		p("\n")
	}
	if len(r.Observations) > 0 {
		p("## Observations\n\nRecorded without judging: no verdict, exit status or compliance level depends on them.\n\n| Subject | Scenario | What was seen |\n|---|---|---|\n")
		for _, o := range r.Observations {
			p("| %s | %s | %s |\n", m.inline(o.Subject), m.code(o.Scenario), m.inline(o.What))
		}
		p("\n")
	}
	if st := r.Stability; st != nil {
		p("## Stability\n\n")
		if !st.Varied {
			p("Every outcome was the same in all %d runs.\n\n", st.Runs)
			return
		}
		p("Outcomes **varied** over %d runs.\n\n| Scenario or requirement | Outcomes | Flake rate |\n|---|---|---|\n", st.Runs)
		for _, v := range st.Scenarios {
			p("| %s | %s | |\n", m.inline(v.Scenario), m.inline(v.Summary))
		}
		for _, f := range st.Requirements {
			p("| %s | %s | %.0f%% |\n", m.inline(f.ID), m.inline(f.Summary), 100*f.Rate)
		}
		p("\n")
	}
}
