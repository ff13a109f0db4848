package agents

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/agentconform/conform/harness/report"
)

// Area is one column of the README's agents × areas table: the feature
// files whose scenarios make a requirement belong to it.
type Area struct {
	Name  string
	Files []string // feature file name prefixes
}

// Areas are the table's columns, in order; a requirement belongs to the
// area most of its scenarios' feature files belong to (the first on a
// tie), so the table follows the suite without a typed list of IDs.
var Areas = []Area{
	{"turn order", []string{"turn_order", "model_stream", "call_context", "session_lifecycle"}},
	{"bounds", []string{"bounds"}},
	{"cost", []string{"cost", "bounds_cost"}},
	{"done", []string{"done_detection"}},
	{"doom loop", []string{"doom_loop"}},
	{"concurrency", []string{"concurrency"}},
	{"hooks", []string{"hook_"}},
	{"plan/apply", []string{"plan_"}},
	{"sub-agents", []string{"subagents"}},
	{"error recovery", []string{"error_recovery"}},
	{"trace", []string{"tracing", "hook_tracing"}},
}

// areaOfFile is the index in Areas of a feature file, -1 for none (the
// deterministic-first profile, reported apart). The longest matching
// prefix wins (bounds_cost is cost, hook_tracing is trace).
func areaOfFile(file string) int {
	base := strings.TrimSuffix(path.Base(file), ".feature")
	best, bestLen := -1, 0
	for i, a := range Areas {
		for _, f := range a.Files {
			if (base == f || strings.HasPrefix(base, f)) && len(f) > bestLen {
				best, bestLen = i, len(f)
			}
		}
	}
	return best
}

// AreaOf is the index in Areas of requirement q, -1 for none.
func AreaOf(q report.RequirementResult) int {
	n := make([]int, len(Areas))
	for _, s := range q.Scenarios {
		file, _, _ := strings.Cut(s, ":")
		if i := areaOfFile(file); i >= 0 {
			n[i]++
		}
	}
	best := -1
	for i, c := range n {
		if c > 0 && (best < 0 || c > n[best]) {
			best = i
		}
	}
	return best
}

// Cell is one agent's figures in one area.
type Cell struct{ Pass, Fail, Glue, Other int }

func (c Cell) String() string {
	if c.Pass+c.Fail+c.Glue+c.Other == 0 {
		return "–"
	}
	return fmt.Sprintf("%d / %d / %d", c.Pass, c.Fail, c.Glue)
}

// Cells are r's figures per area: pass (of them glue-labelled passes
// counted as passes), fail or error of the agent, fail or error labelled
// glue, anything else.
func Cells(r *report.Report) []Cell {
	out := make([]Cell, len(Areas))
	for _, q := range r.Requirements {
		i := AreaOf(q)
		if i < 0 {
			continue
		}
		switch {
		case q.Status == report.Pass:
			out[i].Pass++
		case (q.Status == report.Fail || q.Status == report.Error) && q.Glue != "":
			out[i].Glue++
		case q.Status == report.Fail || q.Status == report.Error:
			out[i].Fail++
		default:
			out[i].Other++
		}
	}
	return out
}

// Classes counts j's judgements by class.
func Classes(j *Judgements) map[string]int {
	m := map[string]int{}
	for _, g := range j.Failing {
		m[g.Class]++
	}
	return m
}

func short(digest string) string {
	d := strings.TrimPrefix(digest, "sha256:")
	if len(d) > 12 {
		d = d[:12]
	}
	if d == "" {
		return "none"
	}
	return d
}

// Table renders the README's agents × areas table.
func Table(as []Agent, reports map[string]*report.Report, js map[string]*Judgements, ps map[string]*Profile) string {
	var b strings.Builder
	b.WriteString("<!-- agents table: rendered from reports/agents/*.json by `go test ./reports/agents -update`; do not edit -->\n")
	b.WriteString("Each area cell: requirements that pass / fail (the agent's) / fail (glue: the profile's or the bridge's). ")
	b.WriteString("Judgement classes of the failing ones: true finding / glue / suite fixed.\n\n")
	b.WriteString("| agent | version | run | suite | ")
	for _, a := range Areas {
		b.WriteString(a.Name + " | ")
	}
	b.WriteString("judged true / glue / suite | time | reports |\n|---|---|---|---|")
	for range Areas {
		b.WriteString("--:|")
	}
	b.WriteString("---|--:|---|\n")
	for _, a := range as {
		r := reports[a.Slug]
		if r == nil {
			continue
		}
		c := Classes(js[a.Slug])
		fmt.Fprintf(&b, "| %s | `%s` %s | %s | `%s` | ", a.Title, ps[a.Slug].Package.NPM, ps[a.Slug].Package.Version,
			r.StartedAt.UTC().Format("2006-01-02"), short(r.Tool.SuiteDigest))
		for _, cell := range Cells(r) {
			b.WriteString(cell.String() + " | ")
		}
		p := "reports/agents/" + a.Slug
		fmt.Fprintf(&b, "%d / %d / %d | %s | [judgements](%s.judgements.md) · [report](%s.md) · [HTML](%s.html) · [JSON](%s.json) |\n",
			c[ClassTrue], c[ClassGlue], c[ClassSuite], r.Duration.Round(time.Second), p, p, p, p)
	}
	b.WriteString("<!-- /agents table -->")
	return b.String()
}

// Markdown renders one agent's readable judgement from its JSON.
func Markdown(a Agent, j *Judgements, r *report.Report, p *Profile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!-- rendered from %s.judgements.json and %s.json by `go test ./reports/agents -update`; do not edit -->\n", a.Slug, a.Slug)
	fmt.Fprintf(&b, "# Judgements: %s (`%s` %s)\n\n", strings.TrimPrefix(strings.SplitN(a.Title, "]", 2)[0], "["), p.Package.NPM, p.Package.Version)
	s := r.Summary.Requirements
	fmt.Fprintf(&b, "Report [%s.json](%s.json) of %s, suite `%s`, suite time %s (the machine was shared with other jobs).\n\n",
		a.Slug, a.Slug, r.StartedAt.UTC().Format("2006-01-02 15:04 UTC"), short(r.Tool.SuiteDigest), r.Duration.Round(time.Second))
	if r.Interrupted {
		fmt.Fprintf(&b, "**Interrupted:** the run was stopped before every scenario ran (%d of %d scenarios not run); the figures are of what ran, and no compliance claim is made.\n\n", r.Summary.Scenarios[report.NotRun], scenarioCount(r))
	}
	fmt.Fprintf(&b, "| pass | fail (agent) | fail (glue) | error | skipped | not tested | unverifiable |\n|--:|--:|--:|--:|--:|--:|--:|\n")
	glueFail, agentFail, errs := 0, 0, 0
	for _, q := range r.Requirements {
		switch {
		case q.Status == report.Error:
			errs++
		case q.Status == report.Fail && q.Glue != "":
			glueFail++
		case q.Status == report.Fail:
			agentFail++
		}
	}
	fmt.Fprintf(&b, "| %d | %d | %d | %d | %d | %d | %d |\n\n", s[report.Pass], agentFail, glueFail, errs, s[report.Skipped], s[report.NotTested], s[report.Unverifiable])
	c := Classes(j)
	fmt.Fprintf(&b, "Failing or erroring requirements judged: %d true finding(s), %d glue, %d false failure(s) of the suite (fixed).\n\n", c[ClassTrue], c[ClassGlue], c[ClassSuite])
	b.WriteString("## Failing requirements\n\n| requirement | verdict | class | why | evidence |\n|---|---|---|---|---|\n")
	byID := map[string]report.RequirementResult{}
	for _, q := range r.Requirements {
		byID[q.ID] = q
	}
	fs := slices.Clone(j.Failing)
	slices.SortFunc(fs, func(x, y Judgement) int { return strings.Compare(x.Requirement, y.Requirement) })
	for _, g := range fs {
		q := byID[g.Requirement]
		verdict := string(q.Status)
		if q.Glue != "" {
			verdict += " (glue)"
		}
		var ev []string
		for _, e := range g.Evidence {
			t := e.Kind + ": `" + cell(e.Ref) + "`"
			if e.Note != "" {
				t += " " + cell(e.Note)
			}
			ev = append(ev, t)
		}
		fmt.Fprintf(&b, "| %s %s | %s | %s | %s | %s |\n", g.Requirement, cell(q.Title), verdict, g.Class, cell(g.Why), strings.Join(ev, "<br>"))
	}
	if len(j.Passes) > 0 {
		b.WriteString("\n## Passes sampled\n\nWho made the requirement pass: the agent, the profile or the bridge, or a check that saw nothing.\n\n| requirement | by | why |\n|---|---|---|\n")
		for _, s := range j.Passes {
			fmt.Fprintf(&b, "| %s %s | %s | %s |\n", s.Requirement, cell(byID[s.Requirement].Title), s.By, cell(s.Why))
		}
	}
	return b.String()
}

func scenarioCount(r *report.Report) int {
	n := 0
	for _, c := range r.Summary.Scenarios {
		n += c
	}
	return n
}

// cell makes text safe inside a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	return strings.ReplaceAll(s, "\n", " ")
}
