package diff

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/agentconform/conform/harness/report"
)

// Kind classifies a change.
type Kind string

// Kinds of change, in the order they are listed.
const (
	Regression  Kind = "regression"
	Improvement Kind = "improvement"
	Changed     Kind = "changed"
	Added       Kind = "added"
	Removed     Kind = "removed"
)

var order = []Kind{Regression, Improvement, Changed, Added, Removed}

// Change is one requirement or scenario whose status changed.
type Change struct {
	Kind Kind
	// Subject is a requirement ID or a scenario's file:line (its new line
	// when it still exists).
	Subject string
	Name    string // title of the requirement, name of the scenario
	Level   string // requirement class (must, should, may, seed)
	Old     string // "" when added
	New     string // "" when removed
	// Why is the new failure's reason, for a regression.
	Why string
}

// Result is the comparison of two reports.
type Result struct {
	Old, New     Side
	Requirements []Change
	Scenarios    []Change
}

// Side names one report.
type Side struct {
	Name       string
	Kernel     string
	Conform    string
	Compliance string
}

// Regressions counts the regressions of requirements and scenarios.
func (r *Result) Regressions() int {
	n := 0
	for _, c := range append(slices.Clone(r.Requirements), r.Scenarios...) {
		if c.Kind == Regression {
			n++
		}
	}
	return n
}

// Compare compares old with new.
func Compare(oldName string, old *report.Report, newName string, new *report.Report) *Result {
	res := &Result{Old: side(oldName, old), New: side(newName, new)}
	olds := map[string]report.RequirementResult{}
	for _, q := range old.Requirements {
		olds[q.ID] = q
	}
	seen := map[string]bool{}
	for _, q := range new.Requirements {
		seen[q.ID] = true
		o, ok := olds[q.ID]
		c := Change{Subject: q.ID, Name: q.Title, Level: q.Class, New: reqStatus(q)}
		if !ok {
			c.Kind = Added
			res.Requirements = append(res.Requirements, c)
			continue
		}
		c.Old = reqStatus(o)
		if c.Old == c.New {
			continue
		}
		c.Kind = classify(o.Status, q.Status)
		if c.Kind == Regression {
			c.Why = q.Reason
		}
		res.Requirements = append(res.Requirements, c)
	}
	for _, o := range old.Requirements {
		if !seen[o.ID] {
			res.Requirements = append(res.Requirements, Change{Kind: Removed, Subject: o.ID, Name: o.Title, Level: o.Class, Old: reqStatus(o)})
		}
	}
	res.Scenarios = scenarios(old.Scenarios, new.Scenarios)
	sortChanges(res.Requirements)
	sortChanges(res.Scenarios)
	return res
}

func side(name string, r *report.Report) Side {
	return Side{Name: name, Kernel: r.Kernel.Name + " " + r.Kernel.Version,
		Conform: r.Tool.Name + " " + r.Tool.Version, Compliance: r.Compliance.Label}
}

func reqStatus(q report.RequirementResult) string {
	if q.Status == report.Pass && q.Partial {
		return "pass (partial)"
	}
	return string(q.Status)
}

func bad(s report.Status) bool { return s == report.Fail || s == report.Error }

func classify(old, new report.Status) Kind {
	switch {
	case bad(new) && !bad(old):
		return Regression
	case bad(old) && !bad(new):
		return Improvement
	}
	return Changed
}

// scenarios matches scenarios by file, name and rank among same-named
// scenarios of the file (an outline's rows share a name).
func scenarios(old, new []report.ScenarioResult) []Change {
	key := func(list []report.ScenarioResult) (map[string]report.ScenarioResult, []string) {
		sorted := slices.Clone(list)
		slices.SortStableFunc(sorted, func(a, b report.ScenarioResult) int {
			return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
		})
		m := map[string]report.ScenarioResult{}
		var keys []string
		rank := map[string]int{}
		for _, s := range sorted {
			base := s.File + "\x00" + s.Name
			k := fmt.Sprintf("%s\x00%d", base, rank[base])
			rank[base]++
			m[k] = s
			keys = append(keys, k)
		}
		return m, keys
	}
	om, okeys := key(old)
	nm, nkeys := key(new)
	var out []Change
	for _, k := range nkeys {
		n := nm[k]
		c := Change{Subject: n.Ref(), Name: n.Name, New: string(n.Status)}
		o, ok := om[k]
		if !ok {
			c.Kind = Added
			out = append(out, c)
			continue
		}
		if o.Status == n.Status {
			continue
		}
		c.Old = string(o.Status)
		c.Kind = classify(o.Status, n.Status)
		if c.Kind == Regression {
			c.Why = n.Failure
		}
		out = append(out, c)
	}
	for _, k := range okeys {
		if _, ok := nm[k]; !ok {
			o := om[k]
			out = append(out, Change{Kind: Removed, Subject: o.Ref(), Name: o.Name, Old: string(o.Status)})
		}
	}
	return out
}

func sortChanges(cs []Change) {
	rank := func(k Kind) int { return slices.Index(order, k) }
	slices.SortStableFunc(cs, func(a, b Change) int { return cmp.Compare(rank(a.Kind), rank(b.Kind)) })
}
