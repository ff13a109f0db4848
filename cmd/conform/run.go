package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentconform/conform/features"
	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/baseline"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
)

type runFlags struct {
	kernel, tags, require    string
	jsonOut, junitOut, mdOut string
	features                 string
	jobs                     int
	jobsSet                  bool // -j given; otherwise the run chooses (runner.AutoConcurrency)
	timeout, initTimeout     time.Duration
	quiet                    bool
	env                      []string
	multiplier               float64
	slow                     bool
	failFast                 bool
	repeat                   int
	// Reports for people: the HTML page and the README badge.
	htmlOut, badgeOut, badgeJSON string
	// CI workflow (runci.go).
	baseline, shard, durations, bundle string
	strictBaseline                     bool
	// kernelObs is the observation file conform agent's kernel writes
	// beside the wire (harness/bridge observations.go). Only conform agent
	// sets it, in-process: no flag can, since it also makes the run
	// honour the bridge's own readings (runner.Options.Bridged).
	kernelObs string
}

func newRunCmd() *cobra.Command { return runCommand(new(runFlags)) }

// runCommand is conform run with its flags bound to f; conform agent
// builds on it and sets what no user may (f.kernelObs).
func runCommand(f *runFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the conformance suite against a kernel",
		Long: `Run the conformance suite against a kernel.

Without --kernel, the embedded reference kernel is checked in-process. With
--kernel "CMD ARGS", the command is started as a subprocess that speaks
conform.wire/v1 on stdin/stdout; an empty --kernel is a usage error.
The kernel gets a minimal environment (PATH, HOME, locale, TMPDIR and the
usual toolchain variables, not conform's secrets); --env NAME passes another
variable on, --env NAME=VALUE sets one.

Everything the run needs is checked before a kernel starts: the flags, the
tag expression (it must parse and select at least one scenario), the
feature files and the report paths (their folders are created).

Exit status: 0 when no checked requirement at the --require level fails or
errs; 1 when one does; 2 on a usage or harness error, or when a report
could not be written; 3 when the run was interrupted before every scenario
had a verdict. Requirements no scenario covers yet are reported as
not_tested and do not fail the run, but the compliance label always says
how many there are.

In CI: --baseline FILE lists known failures (conform baseline write makes
one from a report); a listed failure stays a failure in every report and is
named expected fail, but does not fail the run, and a listed item that now
passes is stale (exit 1 with --strict-baseline). --shard K/N runs one slice
of the selection (conform merge folds the slices' JSON reports into the
verdict of one run); --bundle DIR writes a repro bundle for every failing or
erroring scenario (conform replay DIR).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSuite(cmd, *f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.kernel, "kernel", "", `kernel adapter command, e.g. "python3 kernel.py" (default: the embedded reference kernel)`)
	fl.StringVar(&f.tags, "tags", "", `godog tag expression selecting scenarios: "," is or, "&&" is and, "~" is not, e.g. "@TA-01,@TA-02" or "@must&&~@slow"`)
	fl.StringVar(&f.require, "require", "must", "level that must pass for exit 0: must, should or all (any case)")
	fl.StringVar(&f.jsonOut, "report-json", "", "write the JSON report to this file")
	fl.StringVar(&f.junitOut, "junit", "", "write a JUnit XML report to this file")
	fl.StringVar(&f.mdOut, "markdown", "", "write a Markdown summary to this file")
	fl.StringVar(&f.htmlOut, "html", "", "write a self-contained HTML report to this file (sequence diagrams of the failing scenarios; loads nothing from the network)")
	fl.StringVar(&f.badgeOut, "badge", "", `write an SVG badge ("conform | MUST ✓ 87/96", coloured by compliance level) to this file`)
	fl.StringVar(&f.badgeJSON, "badge-json", "", "write the badge as a shields.io endpoint JSON document to this file")
	fl.StringVar(&f.features, "features", "", "run the .feature files under this folder instead of the embedded suite")
	fl.IntVarP(&f.jobs, "jobs", "j", 0, "scenarios run in parallel, each on its own kernel instance (default: chosen once the kernel's first start-up is measured, 6 per CPU core, fewer for a kernel slow to start; kernels start a few at a time whatever -j is, each with its own --init-timeout)")
	fl.DurationVar(&f.timeout, "timeout", 20*time.Second, "time one scenario's session may take before the kernel is declared hung")
	fl.DurationVar(&f.initTimeout, "init-timeout", 10*time.Second, "time a kernel may take to start and answer initialize")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no per-scenario progress")
	fl.BoolVar(&f.failFast, "fail-fast", false, "stop at the first scenario that fails or errs a requirement at the --require level: nothing new starts, the scenarios still running are abandoned, the report says where it stopped and makes no compliance claim (exit 1)")
	fl.BoolVar(&f.slow, "slow", false, "also run the scenarios tagged @slow (they wait out real schedules, such as the default retry count); without it a requirement they serve passes only partially")
	fl.Float64Var(&f.multiplier, "timeout-multiplier", 1, "scale every duration the suite uses (scenario and initialize timeouts, grace windows, deadlines) by this factor, for a slow kernel or machine")
	fl.IntVar(&f.repeat, "repeat", 1, "run every selected scenario this many times and report any outcome that varied (exit 1 on any variation)")
	fl.StringArrayVar(&f.env, "env", nil, "give the --kernel subprocess this variable of conform's environment (NAME) or this value (NAME=VALUE); repeatable")
	fl.StringVar(&f.baseline, "baseline", "", "known failures (JSON or YAML, spec/baseline.schema.json): a listed failure is reported as expected fail and does not fail the run")
	fl.BoolVar(&f.strictBaseline, "strict-baseline", false, "a baseline entry that no longer fails (stale) fails the run")
	fl.StringVar(&f.shard, "shard", "", "run slice K of N of the selected scenarios (e.g. 2/4), deterministic and balanced; merge the slices' JSON reports with conform merge")
	fl.StringVar(&f.durations, "durations", "", "a previous JSON report: balance --shard by its recorded scenario durations instead of by count")
	fl.StringVar(&f.bundle, "bundle", "", "write a repro bundle (conform replay) for every failing or erroring scenario under this folder")
	return cmd
}

// checkRunFlags refuses values that used to be replaced silently.
func checkRunFlags(f *runFlags) error {
	f.require = strings.ToLower(strings.TrimSpace(f.require))
	switch f.require {
	case "must", "should", "all":
	default:
		return usage("--require must be must, should or all, not %q", f.require)
	}
	switch {
	case f.jobsSet && f.jobs < 1:
		return usage("-j/--jobs must be at least 1, not %d", f.jobs)
	case f.timeout <= 0:
		return usage("--timeout must be positive, not %v", f.timeout)
	case f.initTimeout <= 0:
		return usage("--init-timeout must be positive, not %v", f.initTimeout)
	case !(f.multiplier >= 1) || f.multiplier > 1000:
		return usage("--timeout-multiplier must be between 1 and 1000, not %v", f.multiplier)
	case f.repeat < 1:
		return usage("--repeat must be at least 1, not %d", f.repeat)
	case f.failFast && f.repeat > 1:
		return usage("--fail-fast stops at the first failure and --repeat %d measures how outcomes vary over whole runs: use one", f.repeat)
	case f.failFast && f.baseline != "":
		return usage("--fail-fast stops at the first failure and --baseline expects some: use one")
	}
	return nil
}

func runSuite(cmd *cobra.Command, f runFlags) error {
	f.jobsSet = cmd.Flags().Changed("jobs")
	if !f.jobsSet {
		f.jobs = runner.AutoConcurrency
	}
	if err := checkRunFlags(&f); err != nil {
		return err
	}
	l, err := launcher(cmd, f.kernel)
	if err != nil {
		return err
	}
	if l, err = withEnv(l, f.env); err != nil {
		return err
	}
	opt := runner.Options{Launcher: l, Tags: f.tags, Concurrency: f.jobs, ScenarioTimeout: f.timeout, FS: features.FS, Root: ".", TimeoutMultiplier: f.multiplier, Slow: f.slow}
	if f.kernelObs != "" {
		opt.KernelObservations = kernelObservations(f.kernelObs)
		opt.Bridged = true
	}
	if f.features != "" {
		if opt.FS, err = featureFolder(f.features); err != nil {
			return err
		}
	}
	if err := checkSelection(opt, f); err != nil {
		return err
	}
	ci, err := prepareCI(cmd, f, &opt)
	if err != nil {
		return err
	}
	outs, err := prepareReports(f)
	if err != nil {
		return err
	}
	outs = withBaselineSections(outs)
	if !f.quiet {
		opt.Progress = cmd.ErrOrStderr()
		opt.ProgressTTY = isTerminal(opt.Progress)
		if opt.ProgressTTY {
			opt.ProgressWidth = terminalWidth(opt.Progress)
			opt.ProgressColor = colorWanted(os.LookupEnv)
		}
	}
	pool := driver.NewPool(l)
	pool.InitTimeout = time.Duration(float64(f.initTimeout) * f.multiplier)
	pool.InitTimeoutName = "--init-timeout"
	defer pool.Close()
	opt.Pool = pool

	stopCtx, interrupted := context.WithCancel(context.Background())
	defer interrupted()
	opt.Stop = stopCtx
	defer onSignals(cmd, interrupted, pool)()

	var failedFast *report.ScenarioResult
	if f.failFast {
		if opt.StopWhen, err = failFast(f.require, &failedFast); err != nil {
			return err
		}
	}
	r, err := runner.RunRepeated(cmd.Context(), opt, f.repeat)
	incomplete := errors.Is(err, runner.ErrIncomplete)
	if incomplete && failedFast != nil && r != nil {
		// Stopped by --fail-fast, not by a signal: the failure found is
		// the verdict (exit 1 through the gate), and the report says where
		// the run stopped.
		incomplete, err = false, nil
		r.Warnings = append(r.Warnings, fmt.Sprintf("--fail-fast: the run stopped after %s (%s) failed a requirement at level %s; the scenarios still running were abandoned and the others not run",
			failedFast.Ref(), failedFast.Name, f.require))
	}
	var initErr *runner.InitError
	switch {
	case errors.As(err, &initErr) && r != nil:
		// The kernel never initialized: the reports still say so, for CI.
		report.Redact(r, nil)
		written, werr := writeEach(r, outs)
		sayWritten(cmd.ErrOrStderr(), written, "")
		return &exitError{exitUsage, errors.Join(err, ci.finish(cmd, r), werr)}
	case err != nil && !incomplete:
		return &exitError{exitUsage, err}
	}
	// The kernel may have echoed conform's secrets; no report keeps them.
	report.Redact(r, nil)
	cierr := ci.finish(cmd, r)
	// A report that cannot be written must not cost the others, nor the
	// text report of a run that finished.
	written, werr := writeEach(r, outs)
	werr = errors.Join(cierr, werr)
	if err := report.WriteText(cmd.OutOrStdout(), r); err != nil {
		werr = errors.Join(werr, err)
	}
	if err := baseline.WriteText(cmd.OutOrStdout(), r.Baseline); err != nil {
		werr = errors.Join(werr, err)
	}
	sayWritten(cmd.OutOrStdout(), written, f.bundle)
	switch {
	case werr != nil:
		return &exitError{exitUsage, fmt.Errorf("the run finished, but not every report was written:\n%w", werr)}
	case incomplete:
		return &exitError{exitIncomplete, errors.New("the run was interrupted before every scenario had a verdict")}
	}
	return gate(r, f.require)
}

// onSignals makes the first SIGINT or SIGTERM interrupt the run (nothing new
// starts; the reports are written) and a second one exit at once, after
// killing the kernels. It returns the function that stops listening.
func onSignals(cmd *cobra.Command, interrupt func(), pool *driver.Pool) func() {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
		case <-done:
			return
		}
		fmt.Fprintln(cmd.ErrOrStderr(), "conform: interrupted; finishing the reports (a second interrupt exits at once)")
		interrupt()
		select {
		case <-ch:
		case <-done:
			return
		}
		fmt.Fprintln(cmd.ErrOrStderr(), "conform: second interrupt; killing the kernels and exiting")
		pool.Close()
		os.Exit(exitIncomplete)
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// withEnv gives a subprocess kernel the --env variables.
func withEnv(l adapter.Launcher, specs []string) (adapter.Launcher, error) {
	if len(specs) == 0 {
		return l, nil
	}
	sub, ok := l.(adapter.Subprocess)
	if !ok {
		return nil, usage("--env needs --kernel: the embedded reference kernel runs inside conform")
	}
	env, err := adapter.ResolveEnv(specs, os.LookupEnv)
	if err != nil {
		return nil, usage("%v", err)
	}
	sub.Env = append(sub.Env, env...)
	return sub, nil
}
