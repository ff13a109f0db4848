package main

import (
	"sync"
	"time"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/spec"
)

// failFast is runner.Options.StopWhen for --fail-fast: a scenario stops the
// run when, judged alone, it fails or errs a requirement at the --require
// level — the same verdict the exit status is built from, so a failing
// SHOULD does not stop a run gated on MUST. The first such scenario is
// kept in *first for the report's warning.
func failFast(level string, first **report.ScenarioResult) (func(report.ScenarioResult) bool, error) {
	cat, err := spec.Load()
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	return func(row report.ScenarioResult) bool {
		if row.Status != report.Fail && row.Status != report.Error {
			return false
		}
		alone := report.Build(cat, report.Kernel{}, []report.ScenarioResult{row}, time.Time{}, 0)
		if len(alone.Failing(level)) == 0 {
			return false
		}
		mu.Lock()
		defer mu.Unlock()
		if *first == nil {
			kept := row
			*first = &kept
		}
		return true
	}, nil
}
