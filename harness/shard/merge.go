package shard

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/spec"
)

// Source is one report to merge and the name it is known by (its file).
type Source struct {
	Name   string
	Report *report.Report
}

// MergeError is a set of reports that must not be folded into one.
type MergeError struct{ Reasons []string }

func (e *MergeError) Error() string {
	return "the reports cannot be merged:\n  " + strings.Join(e.Reasons, "\n  ")
}

// Merge folds reports of one kernel, one catalog and one protocol into one
// report. Shard reports must be every slice of one run, each once; reports
// that are not shards must not share a scenario. The verdicts come from
// report.BuildWith over the union of the scenarios, exactly as one run
// would decide them.
func Merge(cat *spec.Catalog, srcs []Source) (*report.Report, error) {
	if len(srcs) == 0 {
		return nil, errors.New("no report to merge")
	}
	var why []string
	for _, s := range srcs {
		why = append(why, sameCatalog(cat, s)...)
	}
	first := srcs[0]
	for _, s := range srcs[1:] {
		why = append(why, sameRun(first, s)...)
	}
	why = append(why, shardsComplete(srcs)...)
	why = append(why, noOverlap(srcs)...)
	if len(why) > 0 {
		return nil, &MergeError{Reasons: why}
	}

	var rows []report.ScenarioResult
	var warnings, selections []string
	leftOut := map[string][]string{}
	interrupted := false
	start, end := first.Report.StartedAt, first.Report.StartedAt.Add(first.Report.Duration)
	merged := &report.MergeInfo{}
	for _, s := range srcs {
		r := s.Report
		rows = append(rows, r.Scenarios...)
		for _, w := range r.Warnings {
			if !slices.Contains(warnings, w) {
				warnings = append(warnings, w)
			}
		}
		if !slices.Contains(selections, r.Selection) {
			selections = append(selections, r.Selection)
		}
		for id, names := range r.LeftOut {
			for _, n := range names {
				if !slices.Contains(leftOut[id], n) {
					leftOut[id] = append(leftOut[id], n)
				}
			}
		}
		interrupted = interrupted || r.Interrupted
		if r.StartedAt.Before(start) {
			start = r.StartedAt
		}
		if e := r.StartedAt.Add(r.Duration); e.After(end) {
			end = e
		}
		src := report.MergedSource{File: s.Name, Scenarios: len(r.Scenarios)}
		if r.Shard != nil {
			src.Shard = fmt.Sprintf("%d/%d", r.Shard.K, r.Shard.N)
		}
		merged.Sources = append(merged.Sources, src)
	}
	out := report.BuildWith(cat, first.Report.Kernel, rows, start, end.Sub(start), report.BuildOptions{
		Selection: selection(srcs, selections), Interrupted: interrupted, Warnings: warnings, LeftOut: leftOut,
	})
	out.Tool, out.Protocol = first.Report.Tool, first.Report.Protocol
	out.Stability = stability(srcs)
	out.Merged = merged
	return out, nil
}

// sameCatalog checks a report's requirement rows against the catalog the
// merge decides with: a report made with another catalog has other rows.
func sameCatalog(cat *spec.Catalog, s Source) []string {
	got := s.Report.Requirements
	if len(got) != len(cat.Requirements) {
		return []string{fmt.Sprintf("%s was made with another requirement catalog (%d requirements; this conform's catalog version %d has %d)", s.Name, len(got), cat.Version, len(cat.Requirements))}
	}
	for i, q := range cat.Requirements {
		g := got[i]
		if g.ID != q.ID || g.Level != q.Level || g.Class != q.Class || g.Title != q.Title || g.Profile != q.Profile || g.Area != q.Area {
			return []string{fmt.Sprintf("%s was made with another requirement catalog: its row %d is %s %q (%s), this conform's catalog version %d has %s %q (%s)", s.Name, i+1, g.ID, g.Title, g.Level, cat.Version, q.ID, q.Title, q.Level)}
		}
	}
	return nil
}

// perRunPath is a value conform agent gives each of its runs (shards
// included) afresh: its agent kernel's observation file and scratch root
// under the system's temporary folder. Two shards of one agent run differ
// only there, which says nothing about the kernel they ran.
var perRunPath = regexp.MustCompile(`(--observations|--scratch) \S*conform-agent-(observations|run)-[0-9]+\S*`)

// sameCommand is a kernel command without its per-run paths.
func sameCommand(cmd string) string {
	return perRunPath.ReplaceAllString(cmd, "$1 …")
}

// sameRun checks that b comes from the run a does: same conform, protocol
// and kernel (name, version, command, declared capabilities and readings),
// and, for shards, the same selection cut the same way.
func sameRun(a, b Source) []string {
	ra, rb := a.Report, b.Report
	var why []string
	differ := func(what, x, y string) {
		why = append(why, fmt.Sprintf("%s and %s differ in %s: %q and %q", a.Name, b.Name, what, x, y))
	}
	if ra.Protocol != rb.Protocol {
		differ("protocol version", ra.Protocol, rb.Protocol)
	}
	if ra.Tool != rb.Tool {
		tool := func(t report.Tool) string {
			return t.Name + " " + t.Version + ", commit " + t.Commit + ", suite " + t.SuiteDigest
		}
		differ("conform version or suite", tool(ra.Tool), tool(rb.Tool))
	}
	ka, kb := ra.Kernel, rb.Kernel
	if ka.Name != kb.Name || ka.Version != kb.Version {
		differ("kernel", ka.Name+" "+ka.Version, kb.Name+" "+kb.Version)
	}
	if sameCommand(ka.Command) != sameCommand(kb.Command) {
		differ("kernel command", ka.Command, kb.Command)
	}
	if !sameSet(ka.Capabilities, kb.Capabilities) {
		differ("declared capabilities", strings.Join(ka.Capabilities, ","), strings.Join(kb.Capabilities, ","))
	}
	if !maps.Equal(ka.Readings, kb.Readings) {
		differ("declared readings", fmt.Sprint(ka.Readings), fmt.Sprint(kb.Readings))
	}
	if (ra.Shard == nil) != (rb.Shard == nil) {
		why = append(why, fmt.Sprintf("%s and %s: one is a shard, the other is not", a.Name, b.Name))
	} else if ra.Shard != nil {
		if ra.Shard.N != rb.Shard.N {
			differ("shard count", fmt.Sprint(ra.Shard.N), fmt.Sprint(rb.Shard.N))
		}
		if ra.Shard.Selected != rb.Shard.Selected || ra.Selection != rb.Selection {
			differ("selection", fmt.Sprintf("%s (%d scenarios)", ra.Selection, ra.Shard.Selected), fmt.Sprintf("%s (%d scenarios)", rb.Selection, rb.Shard.Selected))
		}
	}
	return why
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// shardsComplete refuses a shard given twice or missing: a merge of three
// of four shards would read as a whole run.
func shardsComplete(srcs []Source) []string {
	if srcs[0].Report.Shard == nil {
		return nil
	}
	n := srcs[0].Report.Shard.N
	seen := map[int]string{}
	var why []string
	total := 0
	for _, s := range srcs {
		sh := s.Report.Shard
		if sh == nil || sh.N != n {
			continue // reported by sameRun
		}
		if prev, ok := seen[sh.K]; ok {
			why = append(why, fmt.Sprintf("shard %d/%d is given twice: %s and %s", sh.K, n, prev, s.Name))
		}
		seen[sh.K] = s.Name
		total += sh.Scenarios
	}
	var missing []string
	for k := 1; k <= n; k++ {
		if _, ok := seen[k]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", k, n))
		}
	}
	if len(missing) > 0 {
		why = append(why, "shards missing: "+strings.Join(missing, ", ")+" (a merge of some shards would read as the whole run)")
	}
	return why
}

// noOverlap refuses a scenario reported twice: its two outcomes would be
// decided as two scenarios.
func noOverlap(srcs []Source) []string {
	where := map[string]string{}
	var why []string
	for _, s := range srcs {
		for _, sc := range s.Report.Scenarios {
			key := sc.Ref()
			if prev, ok := where[key]; ok {
				why = append(why, fmt.Sprintf("scenario %s (%s) is in both %s and %s", key, sc.Name, prev, s.Name))
				if len(why) >= 5 {
					return append(why, "(and maybe more; each scenario must come from one report)")
				}
				continue
			}
			where[key] = s.Name
		}
	}
	return why
}

// selection is the merged report's selection: that of the shards, or, for
// reports of different selections, all of them (a merged selection still
// makes no compliance claim).
func selection(srcs []Source, sels []string) string {
	if srcs[0].Report.Shard != nil || len(sels) == 1 {
		return sels[0]
	}
	var parts []string
	for _, s := range sels {
		if s == "" {
			s = "(everything)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " | ")
}

// stability folds the stability sections of repeated shard runs: the
// scenarios that varied and the requirements that did, in any shard.
func stability(srcs []Source) *report.Stability {
	var out *report.Stability
	for _, s := range srcs {
		st := s.Report.Stability
		if st == nil {
			continue
		}
		if out == nil {
			out = &report.Stability{Runs: st.Runs, Scenarios: []report.Variation{}, Requirements: []report.Flake{}}
		}
		out.Runs = min(out.Runs, st.Runs)
		out.Varied = out.Varied || st.Varied
		out.Scenarios = append(out.Scenarios, st.Scenarios...)
		for _, f := range st.Requirements {
			if !slices.ContainsFunc(out.Requirements, func(g report.Flake) bool { return g.ID == f.ID }) {
				out.Requirements = append(out.Requirements, f)
			}
		}
	}
	return out
}
