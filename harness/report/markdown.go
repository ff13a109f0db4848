package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
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
	}
	return "❓ " + string(s)
}

// word is a status as plain words.
func word(s Status) string {
	if s == NotTested {
		return "not tested"
	}
	return string(s)
}

// WriteMarkdown writes the report for people, e.g. as a CI step summary: the
// compliance label, counts per area, every failing or erroring requirement
// with its reason and covering scenarios, and the full requirement table,
// deterministic-first seed rows under their own heading.
func WriteMarkdown(w io.Writer, r *Report) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }

	p("# Conformance report: %s\n\n", mdEscape(kernelTitle(r.Kernel)))
	p("**Compliance: %s**\n\n", mdEscape(r.Compliance.Label))

	p("| | |\n|---|---|\n")
	p("| Kernel | %s |\n", mdEscape(kernelTitle(r.Kernel)))
	p("| Declared capabilities | %s |\n", codeList(r.Kernel.Capabilities, "none"))
	if r.Kernel.Command != "" {
		p("| Command | %s |\n", code(r.Kernel.Command))
	}
	if tool := strings.TrimSpace(r.Tool.Name + " " + r.Tool.Version); tool != "" {
		p("| Tool | %s |\n", mdEscape(tool))
	}
	if r.Protocol != "" {
		p("| Protocol | %s |\n", code(r.Protocol))
	}
	if !r.StartedAt.IsZero() {
		p("| Started | %s |\n", r.StartedAt.UTC().Format(time.RFC3339))
	}
	p("| Duration | %s |\n", r.Duration.Round(time.Millisecond))
	p("| Scenarios | %s |\n", scenarioCounts(r))
	p("| Compliance level | %s%s |\n\n", code(r.Compliance.Level), completeness(r.Compliance))

	p("## Summary by area\n\n")
	p("| Area | Name |")
	for _, st := range RequirementStatuses() {
		p(" %s |", glyph(st))
	}
	p("\n|---|---|")
	for range RequirementStatuses() {
		p("--:|")
	}
	p("\n")
	for _, a := range r.Summary.ByArea {
		p("| %s | %s |", mdEscape(a.Prefix), mdEscape(a.Name))
		for _, st := range RequirementStatuses() {
			p(" %d |", a.Counts[st])
		}
		p("\n")
	}
	p("| **Total** | |")
	for _, st := range RequirementStatuses() {
		p(" **%d** |", r.Summary.Requirements[st])
	}
	p("\n\n")

	p("## Failures\n\n")
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
		p("- %s **%s** · %s · %s", glyph(q.Status), mdEscape(q.ID), mdEscape(q.Level), mdEscape(q.Title))
		if !agentLoop(q) {
			p(" · deterministic-first profile")
		}
		p("\n  Scenarios: %s\n\n", codeList(q.Scenarios, "none"))
		fence := codeFence(q.Reason)
		p("  %s\n", fence)
		for _, line := range strings.Split(q.Reason, "\n") {
			p("  %s\n", line)
		}
		p("  %s\n\n", fence)
	}

	var agent, seeds []RequirementResult
	for _, q := range r.Requirements {
		if agentLoop(q) {
			agent = append(agent, q)
		} else {
			seeds = append(seeds, q)
		}
	}
	p("## Requirements\n\n")
	requirementTable(p, agent)
	if len(seeds) > 0 {
		p("## Deterministic-first profile\n\n")
		p("Seed requirements of the separate deterministic-first profile. They are reported here but do not affect the compliance level.\n\n")
		requirementTable(p, seeds)
	}
	return b.Flush()
}

func requirementTable(p func(string, ...any), reqs []RequirementResult) {
	if len(reqs) == 0 {
		p("No requirements.\n\n")
		return
	}
	p("| ID | Title | Level | Status | Scenarios | Note |\n|---|---|---|---|---|---|\n")
	for _, q := range reqs {
		note := ""
		if q.Status != Pass && q.Status != NotTested {
			note = mdEscape(truncate(firstLine(q.Reason, ""), 120))
		}
		p("| %s | %s | %s | %s | %s | %s |\n", mdEscape(q.ID), mdEscape(q.Title), mdEscape(q.Level), glyph(q.Status), scenarioCell(q.Scenarios), note)
	}
	p("\n")
}

// scenarioCell lists up to five scenarios and says how many more there are.
func scenarioCell(refs []string) string {
	const limit = 5
	if len(refs) <= limit {
		return codeList(refs, "")
	}
	return codeList(refs[:limit], "") + fmt.Sprintf(" and %d more", len(refs)-limit)
}

func kernelTitle(k Kernel) string {
	t := strings.TrimSpace(k.Name + " " + k.Version)
	if t == "" {
		return "unnamed kernel"
	}
	return t
}

func scenarioCounts(r *Report) string {
	total := 0
	var parts []string
	for _, st := range ScenarioStatuses() {
		n := r.Summary.Scenarios[st]
		total += n
		parts = append(parts, fmt.Sprintf("%d %s", n, word(st)))
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}

func completeness(c Compliance) string {
	if c.Complete {
		return ", complete"
	}
	return fmt.Sprintf(", incomplete: %d not tested, %d not verifiable from outside", c.NotTested, c.Unverifiable)
}

// mdEscape makes text safe for a Markdown table cell or a line of prose:
// punctuation Markdown would interpret is backslash-escaped and line breaks
// become spaces.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '~', '#':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// code renders s as an inline code span that holds any backticks in s.
func code(s string) string {
	s = strings.NewReplacer("\n", " ", "\r", " ", "|", "\\|").Replace(s)
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return ticks + " " + s + " " + ticks
	}
	return ticks + s + ticks
}

func codeList(items []string, empty string) string {
	if len(items) == 0 {
		return empty
	}
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = code(s)
	}
	return strings.Join(out, ", ")
}

// codeFence returns a fence longer than any backtick run in text.
func codeFence(text string) string {
	return strings.Repeat("`", max(3, longestRun(text, '`')+1))
}

func longestRun(s string, c rune) int {
	best, cur := 0, 0
	for _, r := range s {
		if r == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

func truncate(s string, n int) string {
	runes := []rune(s)
	if len(runes) <= n {
		return s
	}
	return string(runes[:n-1]) + "…"
}
