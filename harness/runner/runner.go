package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v34"

	"github.com/agentconform/conform/features"
	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/steps"
	"github.com/agentconform/conform/spec"
	"github.com/agentconform/conform/spec/wire"
)

// Options configure a run.
type Options struct {
	Launcher adapter.Launcher
	// FS and Root locate the feature files; default: the embedded suite.
	FS   fs.FS
	Root string
	// Tags is a godog tag expression, e.g. "@TA-01,@TA-02" or "~@slow".
	Tags string
	// Concurrency is how many scenarios run at once, each on its own
	// kernel; AutoConcurrency chooses from the machine and the kernel's
	// measured start-up (AutoJobs).
	Concurrency     int
	ScenarioTimeout time.Duration
	// Progress, when set, gets one line per finished scenario, numbered
	// [n/total], and the counts at the end (progress.go). With ProgressTTY
	// the lines are cut to ProgressWidth columns (default 80) under one
	// status line redrawn in place, with the counts so far and an estimate
	// of the time left, coloured when ProgressColor is set.
	Progress      io.Writer
	ProgressTTY   bool
	ProgressWidth int
	ProgressColor bool
	// LogLines bounds the recorded log kept per non-passing scenario.
	LogLines int
	// Pool, when set, supplies the kernels instead of a pool of the run's
	// own; it stays open after the run (conform fuzz runs many small runs
	// on the same kernels). Launcher still names the kernel in the report.
	Pool *driver.Pool
	// Stop, when done, interrupts the run: nothing new starts, running
	// sessions are abandoned, and every scenario without a verdict is
	// not_run. The report is still built and marked interrupted.
	Stop context.Context
	// StopWhen, when set, is asked about every finished scenario; once it
	// says yes the run stops as on Stop (conform run --fail-fast: a CI job
	// or a mutation campaign that only needs to know whether anything
	// fails stops at the first failure instead of running the rest).
	StopWhen func(report.ScenarioResult) bool
	// TimeoutMultiplier scales every duration the suite uses (scenario
	// timeout, grace windows, deadlines); values below 1 count as 1.
	TimeoutMultiplier float64
	// Warnings are carried into the report (e.g. from the CLI).
	Warnings []string
	// Only, when set, narrows the selection to the scenarios it keeps (one
	// slice of a sharded run, harness/shard); the others are neither run
	// nor reported. Shard, when set, names that slice in the report, which
	// then makes no compliance claim of its own.
	Only func(ScenarioRef) bool
	// Slow runs the scenarios tagged @slow too (slow.go); without it they
	// are left out and the requirements they serve pass only partially.
	Slow  bool
	Shard *report.ShardInfo
	// Capture, when set, is called with everything the harness recorded of
	// each scenario that failed or ended in error (for repro bundles). It
	// may be called from several goroutines at once.
	Capture func(Capture)
	// KernelObservations, when set, gives what the kernel's launcher saw
	// of a session beside the wire (conform agent: the bridge's
	// observations of the agent), added to the scenario's observations.
	KernelObservations func(sessionID string) []report.Observation
	// Bridged says the kernel is conform's own agent bridge (conform agent
	// launched it), so its bridge.* readings are the harness's word about
	// what it can see of the agent, not the kernel's claim about itself.
	Bridged bool
}

// filesOf is files (in their order) less those holding none of refs: godog
// parses every file it is given before it filters by tag, and a run of a
// few requirements' scenarios spent a sixth of its CPU parsing the rest of
// the suite (issue 25).
func filesOf(files []string, refs []ScenarioRef) []string {
	has := map[string]bool{}
	for _, r := range refs {
		has[r.File] = true
	}
	var out []string
	for _, f := range files {
		if has[path.Clean(f)] {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return files
	}
	return out
}

// stoppedEarly is the error of a run whose context ended while it read the
// suite: no kernel has started, so there is nothing to stop or report, and
// a run stopped shortly before a deadline (conformtest, under go test
// -timeout) must not go on to start one (issue 25: at load 30 reading the
// suite took a race-built test binary more than ten seconds).
func stoppedEarly(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("the run was stopped before any kernel started: %w", context.Cause(ctx))
}

// ErrIncomplete means the run stopped before every scenario had a verdict.
var ErrIncomplete = errors.New("run incomplete")

// Version is conform's version, reported in every report.
var Version = "0.1.0"

var (
	formatSeq      atomic.Int64
	registerFormat sync.Once
	collectors     sync.Map // suite name → *collector
)

const formatName = "conform-collector"

// Run checks the kernel and returns the report. A non-nil error means the
// harness could not run (bad features, kernel that cannot start), except
// ErrIncomplete, which comes with a partial report.
func Run(ctx context.Context, opt Options) (*report.Report, error) {
	started := time.Now()
	if opt.FS == nil {
		opt.FS, opt.Root = features.FS, "."
	}
	if opt.Root == "" {
		opt.Root = "."
	}
	if opt.Concurrency < 1 && opt.Concurrency != AutoConcurrency {
		opt.Concurrency = 1
	}
	opt.scenarioDefaults()
	cat, err := spec.Load()
	if err != nil {
		return nil, err
	}
	files, _, err := LoadFeatures(opt.FS, opt.Root, cat)
	if err != nil {
		return nil, err
	}
	if err := stoppedEarly(ctx); err != nil {
		return nil, err
	}
	// An undefined or ambiguous step is a defect of the feature file: it
	// stops the run before any kernel starts, naming file:line.
	refs, err := Select(opt.FS, opt.Root, opt.Tags)
	if err != nil {
		return nil, err
	}
	if err := CheckSteps(refs); err != nil {
		return nil, err
	}
	if err := stoppedEarly(ctx); err != nil {
		return nil, err
	}
	keepFn, leftOut, slowWarning := opt.Only, map[string][]string(nil), ""
	if !opt.Slow {
		keepFn, leftOut, slowWarning = leaveOutSlow(cat, refs, opt.Only)
	}
	refs, keep := only(refs, keepFn)

	pool := opt.Pool
	if pool == nil {
		pool = driver.NewPool(opt.Launcher)
		defer pool.Close()
	}
	k, err := pool.Get(ctx)
	if err != nil {
		err = &InitError{Err: err}
		return initFailed(cat, opt, refs, started, err), err
	}
	info := k.Info
	pool.Put(k)
	if opt.Concurrency == AutoConcurrency {
		var why string
		opt.Concurrency, why = autoJobs(pool.FirstStart())
		if opt.Progress != nil {
			fmt.Fprintln(opt.Progress, why)
		}
	}

	stop, stopWhen := stopContext(opt)
	defer stopWhen.cancel()
	env := &steps.Env{Pool: pool, ScenarioTimeout: opt.ScenarioTimeout, Info: info, Stop: stop, TimeoutMultiplier: opt.TimeoutMultiplier, Bridged: opt.Bridged}
	col := &collector{docs: map[string]*messages.GherkinDocument{}, undefined: map[string]string{}, logLines: opt.LogLines,
		keep: keep, capture: opt.Capture, finished: stopWhen.check, kernelObs: opt.KernelObservations}
	if opt.Progress != nil {
		col.view = newLiveView(opt.Progress, opt, len(refs), time.Now())
	}
	// godog's formatter registry is global and not safe for concurrent
	// use, so one formatter is registered once and finds this run's
	// collector by the suite name it is handed.
	suiteName := fmt.Sprintf("conform-%d", formatSeq.Add(1))
	collectors.Store(suiteName, col)
	defer collectors.Delete(suiteName)
	registerFormat.Do(func() {
		godog.Format(formatName, "conform result collector", func(suite string, out io.Writer) godog.Formatter {
			c, _ := collectors.Load(suite)
			return &collectFmt{BaseFmt: godog.NewBaseFmt(suite, io.Discard), col: c.(*collector)}
		})
	})
	suite := godog.TestSuite{
		Name: suiteName,
		ScenarioInitializer: func(sc *godog.ScenarioContext) {
			if keep != nil {
				sc.Before(col.skipOthers)
			}
			steps.Register(sc, env, col.add)
		},
		Options: &godog.Options{
			Format: formatName, Output: io.Discard, FS: opt.FS, Paths: filesOf(files, refs),
			Tags: opt.Tags, Concurrency: opt.Concurrency, Strict: true, NoColors: true,
			DefaultContext: ctx,
		},
	}
	suite.Run()

	results := col.results()
	interrupted := ctx.Err() != nil || (stop != nil && stop.Err() != nil)
	if col.view != nil {
		col.view.done(interrupted)
	}
	warnings := append(slices.Clone(opt.Warnings), capabilityWarnings(cat, info.Capabilities)...)
	if slowWarning != "" {
		warnings = append(warnings, slowWarning)
	}
	glue, glueWarnings := glueOf(cat, info.Glue)
	warnings = append(warnings, glueWarnings...)
	if _, ok := info.Readings[steps.BridgeHookPoints]; ok && !opt.Bridged {
		warnings = append(warnings, fmt.Sprintf("the kernel declares %s, which only conform agent's bridge may say of itself; it is ignored and every hook check is judged", steps.BridgeHookPoints))
	}
	r := report.BuildWith(cat, report.Kernel{
		Name: info.Kernel.Name, Version: info.Kernel.Version, Capabilities: info.Capabilities,
		Readings: info.Readings, Glue: glue, Command: opt.Launcher.Describe(),
	}, results, started, time.Since(started), report.BuildOptions{
		Selection: opt.Tags, Interrupted: interrupted, Warnings: warnings, Shard: shardName(opt.Shard),
		LeftOut: leftOut,
	})
	r.Tool = toolOf(opt)
	r.Protocol = wire.Version
	r.Shard = shardInfo(opt.Shard, len(refs))
	if interrupted {
		return r, ErrIncomplete
	}
	return r, nil
}

// capabilityWarnings names declared capabilities the catalog does not know:
// a misspelt capability would otherwise silently skip the rows it gates.
func capabilityWarnings(cat *spec.Catalog, declared []string) []string {
	var out []string
	for _, c := range cat.UnknownCapabilities(declared) {
		w := fmt.Sprintf("the kernel declares capability %q, which the catalog does not know; the rows it was meant to enable are skipped", c)
		if near := cat.NearestCapability(c); near != "" {
			w += fmt.Sprintf(" (did you mean %q?)", near)
		}
		out = append(out, w)
	}
	return out
}

// scenarioDefaults fills what every way of running scenarios defaults
// alike: the scenario timeout and the log lines a failure quotes.
func (opt *Options) scenarioDefaults() {
	if opt.ScenarioTimeout <= 0 {
		opt.ScenarioTimeout = 20 * time.Second
	}
	if opt.LogLines == 0 {
		opt.LogLines = 60
	}
}
