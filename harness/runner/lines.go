package runner

import (
	"context"
	"errors"
	"strings"
	"time"

	messages "github.com/cucumber/messages/go/v34"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/steps"
	"github.com/agentconform/conform/spec"
	"github.com/agentconform/conform/spec/wire"
)

// Lines runs scenarios given as lines of the step library (steps.Line) on
// the kernels of one pool, without godog: conform fuzz runs thousands of
// generated one-scenario features, and godog's setup of each (parsing,
// registering the whole step library, matching every step against every
// pattern) cost about as much as the session itself. Each scenario's report
// is built from the same collector and report.BuildWith as Run's, so a case
// run from lines and the same case written out as a feature file and run by
// Run get the same verdicts (TestLinesAgreeWithGodog in harness/fuzz).
type Lines struct {
	cat    *spec.Catalog
	env    *steps.Env
	kernel report.Kernel
	logs   int
}

// NewLines prepares scenarios given as lines on opt.Pool (required, and
// left open), whose kernel's initialize answer is read once here. Of opt,
// only Pool, Launcher, ScenarioTimeout, TimeoutMultiplier and LogLines
// count.
func NewLines(ctx context.Context, opt Options) (*Lines, error) {
	if opt.Pool == nil {
		return nil, errors.New("runner: Lines needs a pool")
	}
	opt.scenarioDefaults()
	cat, err := spec.Load()
	if err != nil {
		return nil, err
	}
	k, err := opt.Pool.Get(ctx)
	if err != nil {
		return nil, &InitError{Err: err}
	}
	info := k.Info
	opt.Pool.Put(k)
	glue, _ := glueOf(cat, info.Glue)
	return &Lines{
		cat: cat,
		env: &steps.Env{Pool: opt.Pool, ScenarioTimeout: opt.ScenarioTimeout, Info: info, TimeoutMultiplier: opt.TimeoutMultiplier, Bridged: opt.Bridged},
		kernel: report.Kernel{Name: info.Kernel.Name, Version: info.Kernel.Version, Capabilities: info.Capabilities,
			Readings: info.Readings, Glue: glue, Command: describe(opt.Launcher)},
		logs: opt.LogLines,
	}, nil
}

func describe(l interface{ Describe() string }) string {
	if l == nil {
		return ""
	}
	return l.Describe()
}

// Info is the kernel's initialize answer.
func (l *Lines) Info() wire.InitializeResult { return l.env.Info }

// Run runs one scenario given as lines and returns its report. uri and name
// stand for the feature file and the scenario; tags carry their "@".
func (l *Lines) Run(ctx context.Context, uri, name string, tags []string, lines []steps.Line) *report.Report {
	started := time.Now()
	o := steps.RunLines(ctx, l.env, uri, name, tags, lines)
	col := &collector{docs: map[string]*messages.GherkinDocument{}, undefined: map[string]string{}, logLines: l.logs}
	if errors.Is(o.Err, steps.ErrUndefined) {
		col.undefined[o.Pickle.Id] = strings.TrimPrefix(o.Err.Error(), steps.ErrUndefined.Error()+": ")
	}
	row := col.row(o)
	return report.BuildWith(l.cat, l.kernel, []report.ScenarioResult{row}, started, time.Since(started), report.BuildOptions{})
}
