package frameworks

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentconform/conform/harness/report"
)

// Framework is one checked framework: its report's base name and how the
// README names it.
type Framework struct {
	Slug, Title, Version string
}

// Frameworks are the checked frameworks, in README order.
var Frameworks = []Framework{
	{"langchaingo", "[langchaingo](https://github.com/tmc/langchaingo) agents executor (Go)", "v0.1.14"},
	{"genkit", "[Genkit for Go](https://github.com/firebase/genkit) `genkit.Generate`", "v1.4.0"},
	{"ai-sdk", "[Vercel AI SDK](https://ai-sdk.dev) `generateText` (TypeScript, on `examples/node-kit`)", "ai 7.0.173"},
	{"openai-agents", "[OpenAI Agents SDK](https://openai.github.io/openai-agents-js/) `run` (TypeScript, on `examples/node-kit`)", "@openai/agents 0.20.0"},
}

// Load reads a framework's JSON report from dir.
func Load(dir, slug string) (*report.Report, error) {
	return report.ReadFile(filepath.Join(dir, slug+".json"))
}

// Counts are a report's requirement figures; Fail is the framework's
// failures only, GlueFail the glue-labelled ones (never among Fail).
type Counts struct {
	Pass, Partial, Fail, GlueFail, Error, Skipped, NotTested, Unverifiable, Glue int
}

// CountsOf reads the figures of r from its summary.
func CountsOf(r *report.Report) Counts {
	s := r.Summary.Requirements
	c := Counts{Pass: s[report.Pass], Fail: s[report.Fail], GlueFail: r.Summary.GlueFail, Error: s[report.Error],
		Skipped: s[report.Skipped], NotTested: s[report.NotTested], Unverifiable: s[report.Unverifiable], Glue: len(r.Kernel.Glue)}
	for _, q := range r.Requirements {
		if q.Status == report.Pass && q.Partial {
			c.Partial++
		}
	}
	return c
}

func scenarioLine(r *report.Report) string {
	n := 0
	for _, v := range r.Summary.Scenarios {
		n += v
	}
	var parts []string
	for _, st := range report.ScenarioStatuses() {
		if v := r.Summary.Scenarios[st]; v > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", v, strings.ReplaceAll(string(st), "_", " ")))
		}
	}
	return fmt.Sprintf("%d scenarios (%s)", n, strings.Join(parts, ", "))
}

// Figures renders the figure block of a judgement from its report.
func Figures(slug string, r *report.Report) string {
	c := CountsOf(r)
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- figures: rendered from %s.json by `go test ./reports/frameworks -update`; do not edit -->\n", slug)
	fmt.Fprintf(&b, "**Compliance: %s.**\n\n", r.Compliance.Label)
	b.WriteString("| requirements | pass | of them partial | fail (framework) | fail (glue) | error | skipped | not tested | unverifiable | labelled glue |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	fmt.Fprintf(&b, "| %s %s | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n\n", r.Kernel.Name, r.Kernel.Version,
		c.Pass, c.Partial, c.Fail, c.GlueFail, c.Error, c.Skipped, c.NotTested, c.Unverifiable, c.Glue)
	fmt.Fprintf(&b, "Run: %s, suite time %s (`duration_ms`; the machine was shared with other jobs). ", scenarioLine(r), r.Duration.Round(100*time.Millisecond))
	fmt.Fprintf(&b, "Capabilities declared: %s. Glue declared: %s.\n", codes(r.Kernel.Capabilities), codes(glueIDs(r)))
	b.WriteString("<!-- /figures -->")
	return b.String()
}

func glueIDs(r *report.Report) []string {
	var ids []string
	for id := range r.Kernel.Glue {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func codes(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = "`" + x + "`"
	}
	return strings.Join(out, ", ")
}

// Table renders the README's framework table from the reports.
func Table(reports map[string]*report.Report) string {
	var b strings.Builder
	b.WriteString("<!-- frameworks table: rendered from reports/frameworks/*.json by `go test ./reports/frameworks -update`; do not edit -->\n")
	b.WriteString("| framework | version | compliance | pass | fail (framework) | fail (glue) | error | skipped | not tested | unverifiable | reports |\n")
	b.WriteString("|---|---|---|--:|--:|--:|--:|--:|--:|--:|---|\n")
	for _, f := range Frameworks {
		r := reports[f.Slug]
		c := CountsOf(r)
		level := "not compliant"
		if r.Compliance.Level != report.LevelNone {
			level = r.Compliance.Level + "-compliant"
		}
		p := "reports/frameworks/" + f.Slug
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %d | %d | %d | %d | %d | [judgement](%s.md) · [report](%s.report.md) · [HTML](%s.html) · [JSON](%s.json) |\n",
			f.Title, f.Version, level, c.Pass, c.Fail, c.GlueFail, c.Error, c.Skipped, c.NotTested, c.Unverifiable, p, p, p, p)
	}
	b.WriteString("<!-- /frameworks table -->")
	return b.String()
}

// Block replaces the generated block that starts with begin and ends with
// end in text; ok is false when text has none.
func Block(text, begin, end, with string) (string, bool) {
	i := strings.Index(text, begin)
	if i < 0 {
		return text, false
	}
	j := strings.Index(text[i:], end)
	if j < 0 {
		return text, false
	}
	return text[:i] + with + text[i+j+len(end):], true
}

var reqID = regexp.MustCompile(`\b[A-Z]{2}-[0-9]{2}\b`)

// Check holds a judgement's failing table to its report: the table (the
// first under "## Failing requirements") lists in its first column every
// requirement the report fails or errs, and no other; its second column
// starts with "glue" for the requirements the report labels glue and with
// "framework" for the others. It returns what disagrees.
func Check(md string, r *report.Report) []string {
	rows := failingRows(md)
	if rows == nil {
		return []string{"no table under \"## Failing requirements\""}
	}
	want := map[string]report.RequirementResult{}
	for _, q := range r.Requirements {
		if q.Status == report.Fail || q.Status == report.Error {
			want[q.ID] = q
		}
	}
	var bad []string
	seen := map[string]bool{}
	for _, row := range rows {
		label := strings.ToLower(strings.TrimSpace(row[1]))
		for _, id := range reqID.FindAllString(row[0], -1) {
			seen[id] = true
			q, failing := want[id]
			switch {
			case !failing:
				bad = append(bad, fmt.Sprintf("%s is in the failing table, the report says %s", id, statusOf(r, id)))
			case q.Glue != "" && !strings.HasPrefix(label, "glue"):
				bad = append(bad, fmt.Sprintf("%s is labelled glue in the report, the table says %q", id, firstWords(label)))
			case q.Glue == "" && !strings.HasPrefix(label, "framework"):
				bad = append(bad, fmt.Sprintf("%s is the framework's failure in the report, the table says %q", id, firstWords(label)))
			}
		}
	}
	var missing []string
	for id := range want {
		if !seen[id] {
			missing = append(missing, id)
		}
	}
	slices.Sort(missing)
	for _, id := range missing {
		bad = append(bad, fmt.Sprintf("%s fails (%s) but is not in the failing table", id, want[id].Status))
	}
	return bad
}

func statusOf(r *report.Report, id string) string {
	for _, q := range r.Requirements {
		if q.ID == id {
			return string(q.Status)
		}
	}
	return "nothing (no such requirement)"
}

func firstWords(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// failingRows are the cells of the table under "## Failing requirements",
// header and separator left out.
func failingRows(md string) [][]string {
	_, after, ok := strings.Cut(md, "\n## Failing requirements")
	if !ok {
		return nil
	}
	var rows [][]string
	inTable := false
	for _, line := range strings.Split(after, "\n") {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		if !inTable { // the header
			inTable = true
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 2 || strings.Trim(cells[0], "-: ") == "" {
			continue
		}
		rows = append(rows, cells)
	}
	return rows
}
