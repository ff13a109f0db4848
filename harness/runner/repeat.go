package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/harness/report"
)

// RunRepeated runs the selected scenarios n times on one pool of kernels and
// folds the runs into one report: the verdicts of the first run, and a
// stability section naming every scenario whose outcome varied and every
// requirement whose verdict did, with its flake rate. A kernel author (and
// this project) proves a suite stable with it: any variation is a finding.
func RunRepeated(ctx context.Context, opt Options, n int) (*report.Report, error) {
	if n <= 1 {
		return Run(ctx, opt)
	}
	if opt.Pool == nil {
		pool := driver.NewPool(opt.Launcher)
		defer pool.Close()
		opt.Pool = pool
	}
	var runs []*report.Report
	var incomplete error
	for i := 0; i < n; i++ {
		r, err := Run(ctx, opt)
		if err != nil && !errors.Is(err, ErrIncomplete) {
			return nil, err
		}
		runs = append(runs, r)
		if err != nil {
			incomplete = err
			break
		}
	}
	first := runs[0]
	first.Stability = Stability(runs)
	if incomplete != nil {
		first.Interrupted = true
	}
	return first, incomplete
}

// Stability compares repeated runs of the same selection.
func Stability(runs []*report.Report) *report.Stability {
	st := &report.Stability{Runs: len(runs), Scenarios: []report.Variation{}, Requirements: []report.Flake{}}
	byScenario := map[string]map[report.Status]int{}
	var order []string
	for _, r := range runs {
		for _, s := range r.Scenarios {
			key := s.Ref() + " " + s.Name
			if byScenario[key] == nil {
				byScenario[key] = map[report.Status]int{}
				order = append(order, key)
			}
			byScenario[key][s.Status]++
		}
	}
	for _, key := range order {
		if counts := byScenario[key]; len(counts) > 1 {
			st.Scenarios = append(st.Scenarios, report.Variation{Scenario: key, Outcomes: counts, Summary: outcomeSummary(counts)})
		}
	}
	byReq := map[string]map[report.Status]int{}
	var ids []string
	for _, r := range runs {
		for _, q := range r.Requirements {
			if byReq[q.ID] == nil {
				byReq[q.ID] = map[report.Status]int{}
				ids = append(ids, q.ID)
			}
			byReq[q.ID][q.Status]++
		}
	}
	for _, id := range ids {
		counts := byReq[id]
		if len(counts) < 2 {
			continue
		}
		modal := 0
		for _, c := range counts {
			modal = max(modal, c)
		}
		st.Requirements = append(st.Requirements, report.Flake{
			ID: id, Outcomes: counts, Rate: float64(len(runs)-modal) / float64(len(runs)), Summary: outcomeSummary(counts),
		})
	}
	st.Varied = len(st.Scenarios) > 0 || len(st.Requirements) > 0
	return st
}

func outcomeSummary(counts map[report.Status]int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d× %s", counts[report.Status(k)], k))
	}
	return strings.Join(slices.Clip(parts), ", ")
}
