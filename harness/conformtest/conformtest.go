package conformtest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/spec"
)

// Options narrow or tune a check; the zero value runs everything, as
// `conform run` does with its defaults.
type Options struct {
	Tags    string
	Require string // must (default), should or all
	// ScenarioTimeout is one scenario's session timeout (default 20 s),
	// InitTimeout a kernel's for initialize (default 10 s); both are
	// scaled by TimeoutMultiplier (default 1), as conform run
	// --timeout-multiplier does, for a slow kernel or machine.
	ScenarioTimeout   time.Duration
	InitTimeout       time.Duration
	TimeoutMultiplier float64
	// Jobs is how many scenarios run at once, each on its own kernel
	// instance (conform run -j); 0 chooses as the CLI does once the
	// kernel's first start-up is measured (runner.AutoJobs).
	Jobs int
	// Slow runs the scenarios tagged @slow too (conform run --slow).
	Slow bool
}

// deadlineMargin is how long before the test's deadline (go test -timeout)
// the run is stopped, so that its kernels are shut down and what was
// checked is reported before the test binary is killed. Ten seconds, not
// five: a race-built test binary at load 30 on 2 cores took longer than
// five to stop its kernels and report.
const deadlineMargin = 10 * time.Second

// TestKernel runs the suite against the kernel l starts, under the test's
// context (t.Context(), stopped deadlineMargin before go test's -timeout),
// and reports one subtest per requirement with a verdict, named by its ID:
// a requirement that fails or errs at the required level fails its
// subtest, with every failing scenario, its failure text and the recorded
// log; one skipped, not verifiable, not tested, or failing below the
// required level is skipped with the reason; a pass passes. As with
// nettest.TestConn, `go test -run 'TestKernel/TA-02'` checks one
// requirement: a -run pattern that names requirements runs only their
// scenarios. It returns the report for further checks.
func TestKernel(t *testing.T, l adapter.Launcher, opt Options) *report.Report {
	t.Helper()
	if opt.Require == "" {
		opt.Require = "must"
	}
	mult := max(1, opt.TimeoutMultiplier)
	jobs := opt.Jobs
	if jobs <= 0 {
		jobs = runner.AutoConcurrency
	}
	tags, filtered := opt.Tags, false
	if tags == "" {
		tags = tagsOfRunFilter(t.Name())
		filtered = tags != ""
	}
	ctx := t.Context()
	if dl, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, dl.Add(-deadlineMargin))
		defer cancel()
	}
	pool := driver.NewPool(l)
	if opt.InitTimeout > 0 {
		pool.InitTimeout = opt.InitTimeout
	}
	pool.InitTimeout = time.Duration(float64(pool.InitTimeout) * mult)
	pool.InitTimeoutName = "conformtest.Options.InitTimeout"
	defer pool.Close()
	scenario := opt.ScenarioTimeout
	if scenario <= 0 {
		scenario = 20 * time.Second
	}
	r, err := runner.Run(ctx, runner.Options{
		Launcher: l, Tags: tags, Concurrency: jobs, Pool: pool, Slow: opt.Slow,
		ScenarioTimeout: time.Duration(float64(scenario) * mult), TimeoutMultiplier: mult,
	})
	switch {
	case filtered && errors.Is(err, runner.ErrNoScenario):
		t.Skipf("no scenario covers the requirements -run names (%s)", tags)
	case errors.Is(err, runner.ErrIncomplete):
		t.Errorf("the run stopped before every scenario had a verdict (the test ended, or its -timeout is %v away); the verdicts below are of what ran", deadlineMargin)
	case err != nil && ctx.Err() != nil && t.Context().Err() == nil:
		t.Fatalf("conformance run stopped %v before the test's -timeout: %v", deadlineMargin, err)
	case err != nil:
		t.Fatalf("conformance run: %v", err)
	}
	reportSubtests(t, r, opt.Require)
	return r
}

// reportSubtests gives each requirement with a verdict its subtest.
func reportSubtests(t *testing.T, r *report.Report, require string) {
	t.Helper()
	byRef := map[string]report.ScenarioResult{}
	for _, s := range r.Scenarios {
		byRef[s.Ref()] = s
	}
	failing := map[string]bool{}
	for _, q := range r.Failing(require) {
		failing[q.ID] = true
	}
	for _, q := range r.Requirements {
		if len(q.Scenarios) == 0 && q.Status == report.NotTested {
			continue // no scenario covers it: nothing was checked
		}
		t.Run(q.ID, func(t *testing.T) {
			head := fmt.Sprintf("%s [%s] %s: %s", q.ID, q.Level, q.Status, q.Title)
			switch {
			case failing[q.ID]:
				t.Error(head + failures(q, byRef))
			case q.Status == report.Fail || q.Status == report.Error:
				t.Skipf("%s (not required at level %s)%s", head, require, failures(q, byRef))
			case q.Status != report.Pass:
				t.Skipf("%s: %s", head, q.Reason)
			case q.Partial:
				t.Logf("passes partially: %s", q.Unverified)
			}
		})
	}
}

// failures lists the requirement's scenarios that did not pass.
func failures(q report.RequirementResult, byRef map[string]report.ScenarioResult) string {
	var b strings.Builder
	for _, ref := range q.Scenarios {
		s, ok := byRef[ref]
		if !ok || s.Status == report.Pass {
			continue
		}
		b.WriteString("\n  " + ref + " " + s.Name + ": " + s.Failure)
		for _, l := range s.Log {
			b.WriteString("\n      " + l)
		}
	}
	return b.String()
}

// tagsOfRunFilter turns the part of go test's -run pattern that matches
// TestKernel's subtests (the element after the test's own name) into a
// tag selection of the requirements it matches, so that `go test -run
// 'TestKernel/TA-02'` runs TA-02's scenarios, not the whole suite. Empty
// when the pattern does not reach the subtests or matches no requirement.
func tagsOfRunFilter(testName string) string {
	f := flag.Lookup("test.run")
	if f == nil {
		return ""
	}
	elems := splitPattern(f.Value.String())
	level := strings.Count(testName, "/") + 1
	if len(elems) <= level || elems[level] == "" {
		return ""
	}
	re, err := regexp.Compile(elems[level])
	if err != nil {
		return ""
	}
	cat, err := spec.Load()
	if err != nil {
		return ""
	}
	var tags []string
	for _, q := range cat.Requirements {
		if re.MatchString(q.ID) {
			tags = append(tags, "@"+q.ID)
		}
	}
	return strings.Join(tags, ",")
}

// splitPattern splits a -run pattern on the slashes outside brackets and
// parentheses, as the testing package does.
func splitPattern(p string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '[', '(':
			depth++
		case ']', ')':
			depth = max(0, depth-1)
		case '\\':
			i++
		case '/':
			if depth == 0 {
				out = append(out, p[start:i])
				start = i + 1
			}
		}
	}
	return append(out, p[start:])
}
