package bundle

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
)

// Verdict is a replay's outcome next to the recorded one.
type Verdict struct {
	// Same: the same scenario status and, for a scenario that got to its
	// checks, the same check outcomes in the same order.
	Same bool
	Was  report.Status
	Now  report.ScenarioResult
	// Differences say what changed, one line each.
	Differences []string
}

// ReplayOptions tune a replay; zero values take the bundle's settings.
type ReplayOptions struct {
	ScenarioTimeout   time.Duration
	TimeoutMultiplier float64
}

// Replay runs the bundle's scenario, alone, against the kernel l starts and
// compares the outcome with the recorded one. It returns the replay's
// report too, for the CLI to write.
func Replay(ctx context.Context, b *Bundle, l adapter.Launcher, opt ReplayOptions) (Verdict, *report.Report, error) {
	if opt.ScenarioTimeout <= 0 {
		opt.ScenarioTimeout = time.Duration(b.Manifest.Run.ScenarioTimeoutMS * float64(time.Millisecond))
	}
	if opt.TimeoutMultiplier < 1 {
		opt.TimeoutMultiplier = max(b.Manifest.Run.TimeoutMultiplier, 1)
	}
	fsys := os.DirFS(b.Dir)
	refs, err := runner.Select(fsys, ".", "")
	if err != nil {
		return Verdict{}, nil, fmt.Errorf("the bundle's scenario does not load: %w", err)
	}
	if len(refs) != 1 {
		return Verdict{}, nil, fmt.Errorf("the bundle holds %d scenarios, not one", len(refs))
	}
	r, err := runner.Run(ctx, runner.Options{
		Launcher: l, FS: fsys, Root: ".", Concurrency: 1,
		ScenarioTimeout: opt.ScenarioTimeout, TimeoutMultiplier: opt.TimeoutMultiplier,
	})
	if err != nil && r == nil {
		return Verdict{}, nil, err
	}
	if len(r.Scenarios) != 1 {
		return Verdict{}, r, fmt.Errorf("the replay reported %d scenarios, not one", len(r.Scenarios))
	}
	return Compare(b.Manifest.Scenario, r.Scenarios[0]), r, err
}

// Compare judges a replayed scenario against the recorded one. Check lines
// are not compared (the bundle's feature numbers its lines anew), nor are
// failure texts, which may hold process IDs and times; what each check
// concluded is.
func Compare(was Scenario, now report.ScenarioResult) Verdict {
	v := Verdict{Was: was.Status, Now: now}
	if was.Status != now.Status {
		v.Differences = append(v.Differences, fmt.Sprintf("the scenario was %s, now %s", was.Status, now.Status))
	}
	key := func(c report.CheckResult) string {
		ids := slices.Clone(c.Requirements)
		slices.Sort(ids)
		return c.Step + " [" + strings.Join(ids, " ") + "]"
	}
	if len(was.Checks) > 0 || len(now.Checks) > 0 {
		n := max(len(was.Checks), len(now.Checks))
		for i := 0; i < n; i++ {
			switch {
			case i >= len(was.Checks):
				v.Differences = append(v.Differences, fmt.Sprintf("check %d %q is new (%s)", i+1, now.Checks[i].Step, now.Checks[i].Status))
			case i >= len(now.Checks):
				v.Differences = append(v.Differences, fmt.Sprintf("check %d %q did not run (was %s)", i+1, was.Checks[i].Step, was.Checks[i].Status))
			case key(was.Checks[i]) != key(now.Checks[i]):
				v.Differences = append(v.Differences, fmt.Sprintf("check %d is %q, was %q", i+1, key(now.Checks[i]), key(was.Checks[i])))
			case was.Checks[i].Status != now.Checks[i].Status:
				v.Differences = append(v.Differences, fmt.Sprintf("check %q: was %s, now %s", was.Checks[i].Step, was.Checks[i].Status, now.Checks[i].Status))
			}
		}
	}
	v.Same = len(v.Differences) == 0
	return v
}
