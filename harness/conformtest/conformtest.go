package conformtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
)

// Options narrow or tune a check; the zero value runs everything.
type Options struct {
	Tags            string
	Require         string // must (default), should or all
	ScenarioTimeout time.Duration
}

// TestKernel runs the suite against the kernel l starts and reports each
// requirement that fails or errs at the required level as a test error.
// It returns the report for further checks.
func TestKernel(t testing.TB, l adapter.Launcher, opt Options) *report.Report {
	t.Helper()
	if opt.Require == "" {
		opt.Require = "must"
	}
	r, err := runner.Run(context.Background(), runner.Options{
		Launcher: l, Tags: opt.Tags, Concurrency: 2, ScenarioTimeout: opt.ScenarioTimeout,
	})
	if err != nil {
		t.Fatalf("conformance run: %v", err)
	}
	byRef := map[string]report.ScenarioResult{}
	for _, s := range r.Scenarios {
		byRef[s.Ref()] = s
	}
	for _, q := range r.Failing(opt.Require) {
		var b strings.Builder
		for _, ref := range q.Scenarios {
			s := byRef[ref]
			if s.Status == report.Pass {
				continue
			}
			b.WriteString("\n  " + ref + " " + s.Name + ": " + s.Failure)
			for _, l := range s.Log {
				b.WriteString("\n      " + l)
			}
		}
		t.Errorf("%s [%s] %s: %s%s", q.ID, q.Level, q.Status, q.Title, b.String())
	}
	return r
}
