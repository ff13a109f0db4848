package baseline

import (
	"fmt"
	"slices"

	"github.com/agentconform/conform/harness/report"
)

// Apply judges the report against the baseline and records the result in
// r.Baseline. Verdicts are left as they are.
func Apply(r *report.Report, f *File, name string, strict bool) *report.BaselineResult {
	res := &report.BaselineResult{
		File: name, Strict: strict,
		ExpectedFail: []report.BaselineItem{}, Stale: []report.BaselineItem{},
		Unchecked: []report.BaselineItem{}, Unlisted: []report.BaselineItem{},
	}
	entries := map[string]Entry{}
	for _, e := range f.ExpectedFailures {
		entries[e.ID] = e
	}
	scenarios := map[string]report.ScenarioResult{}
	for _, s := range r.Scenarios {
		scenarios[s.Ref()] = s
	}
	partial := r.Selection != "" || r.Shard != nil || r.Interrupted
	for _, q := range r.Requirements {
		e, listed := entries[q.ID]
		failing := q.Status == report.Fail || q.Status == report.Error
		against := failingIn(q, scenarios)
		item := func(refs []string, note string) report.BaselineItem {
			return report.BaselineItem{ID: q.ID, Scenarios: refs, Status: q.Status, Reason: e.Reason, Link: e.Link, Note: note}
		}
		switch {
		case !listed:
			if failing {
				res.Unlisted = append(res.Unlisted, report.BaselineItem{ID: q.ID, Scenarios: against, Status: q.Status, Note: "not in the baseline"})
			}
		case len(e.Scenarios) == 0:
			switch {
			case failing:
				res.ExpectedFail = append(res.ExpectedFail, item(against, ""))
			case q.Status == report.Pass && !partial:
				res.Stale = append(res.Stale, item(nil, "now passes: remove it from the baseline"))
			case q.Status == report.Pass:
				res.Unchecked = append(res.Unchecked, item(nil, "passes in this partial run (a selection, a shard or an interrupted run); the whole run decides whether it is stale"))
			default:
				res.Unchecked = append(res.Unchecked, item(nil, fmt.Sprintf("this run did not check it (%s)", q.Status)))
			}
		default:
			var expected, stale, unchecked []string
			for _, ref := range e.Scenarios {
				s, ran := scenarios[ref]
				switch {
				case slices.Contains(against, ref):
					expected = append(expected, ref)
				case ran && passes(s, q.ID):
					stale = append(stale, ref)
				default:
					unchecked = append(unchecked, ref)
				}
			}
			var extra []string
			for _, ref := range against {
				if !slices.Contains(e.Scenarios, ref) {
					extra = append(extra, ref)
				}
			}
			if len(expected) > 0 {
				res.ExpectedFail = append(res.ExpectedFail, item(expected, ""))
			}
			if len(stale) > 0 {
				res.Stale = append(res.Stale, item(stale, "these listed scenarios no longer fail it: remove them from the baseline"))
			}
			if len(unchecked) > 0 {
				res.Unchecked = append(res.Unchecked, item(unchecked, "these listed scenarios did not run, or did not reach a verdict on it"))
			}
			if failing && len(expected) == 0 && len(extra) == 0 {
				res.Unlisted = append(res.Unlisted, report.BaselineItem{ID: q.ID, Status: q.Status, Reason: e.Reason, Link: e.Link,
					Note: "fails, and in none of the scenarios the baseline lists for it"})
			}
			if failing && len(extra) > 0 {
				res.Unlisted = append(res.Unlisted, report.BaselineItem{ID: q.ID, Scenarios: extra, Status: q.Status,
					Reason: e.Reason, Link: e.Link, Note: "fails in scenarios the baseline does not list for it"})
			}
		}
	}
	r.Baseline = res
	return res
}

// failingIn lists the covering scenarios that speak against the
// requirement: a failing check of it, an error, a skip of a MUST (the
// requirement then fails), or a failed scenario without checks.
func failingIn(q report.RequirementResult, scenarios map[string]report.ScenarioResult) []string {
	var out []string
	for _, ref := range q.Scenarios {
		s, ok := scenarios[ref]
		if !ok {
			continue
		}
		against := false
		switch {
		case s.Status == report.Error:
			against = true
		case s.Status == report.Skipped:
			against = q.Status == report.Fail
		case len(s.Checks) == 0:
			against = s.Status == report.Fail
		default:
			for _, c := range s.Checks {
				if c.Status == report.Fail && slices.Contains(c.Requirements, q.ID) {
					against = true
				}
			}
		}
		if against {
			out = append(out, ref)
		}
	}
	return out
}

// passes: the scenario ran and at least one of its checks of id passed,
// none failed.
func passes(s report.ScenarioResult, id string) bool {
	if len(s.Checks) == 0 {
		return s.Status == report.Pass
	}
	passed := false
	for _, c := range s.Checks {
		if !slices.Contains(c.Requirements, id) {
			continue
		}
		switch c.Status {
		case report.Fail:
			return false
		case report.Pass:
			passed = true
		}
	}
	return passed && s.Status != report.Error
}

// Gate is the CI gate of a report judged against a baseline: the
// requirements at the level that fail or err and are not wholly expected,
// and, with strict, the stale entries. Without a baseline section it is
// r.Failing(level).
func Gate(r *report.Report, level string) (failing []report.RequirementResult, stale []report.BaselineItem) {
	all := r.Failing(level)
	b := r.Baseline
	if b == nil {
		return all, nil
	}
	expected := map[string]bool{}
	for _, it := range b.ExpectedFail {
		expected[it.ID] = true
	}
	for _, it := range b.Unlisted {
		expected[it.ID] = false
	}
	for _, q := range all {
		if !expected[q.ID] {
			failing = append(failing, q)
		}
	}
	if b.Strict {
		stale = b.Stale
	}
	return failing, stale
}
