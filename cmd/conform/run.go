package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
)

type runFlags struct {
	kernel, tags, require    string
	jsonOut, junitOut, mdOut string
	features                 string
	jobs                     int
	timeout                  time.Duration
	quiet                    bool
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the conformance suite against a kernel",
		Long: `Run the conformance suite against a kernel.

Without --kernel, the embedded reference kernel is checked in-process. With
--kernel "CMD ARGS", the command is started as a subprocess that speaks
conform.wire/v1 on stdin/stdout.

Exit status: 0 when no checked requirement at the --require level fails or
errs; 1 when one does; 2 on a usage or harness error; 3 when the run was
interrupted before every scenario had a verdict. Requirements no scenario
covers yet are reported as not_tested and do not fail the run, but the
compliance label always says how many there are.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSuite(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.kernel, "kernel", "", `kernel adapter command, e.g. "python3 kernel.py" (default: the embedded reference kernel)`)
	fl.StringVar(&f.tags, "tags", "", `godog tag expression selecting scenarios, e.g. "@TA-01,@TA-02" or "~@slow"`)
	fl.StringVar(&f.require, "require", "must", "level that must pass for exit 0: must, should or all")
	fl.StringVar(&f.jsonOut, "report-json", "", "write the JSON report to this file")
	fl.StringVar(&f.junitOut, "junit", "", "write a JUnit XML report to this file")
	fl.StringVar(&f.mdOut, "markdown", "", "write a Markdown summary to this file")
	fl.StringVar(&f.features, "features", "", "run the .feature files under this folder instead of the embedded suite")
	fl.IntVarP(&f.jobs, "jobs", "j", 6, "scenarios run in parallel, each on its own kernel instance (scenarios mostly wait on the kernel, so more than the core count pays)")
	fl.DurationVar(&f.timeout, "timeout", 20*time.Second, "time one scenario's session may take before the kernel is declared hung")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no per-scenario progress")
	return cmd
}

func runSuite(cmd *cobra.Command, f runFlags) error {
	switch f.require {
	case "must", "should", "all":
	default:
		return &exitError{exitUsage, fmt.Errorf("--require must be must, should or all, not %q", f.require)}
	}
	var l adapter.Launcher = embeddedKernel()
	if f.kernel != "" {
		argv, err := adapter.ParseCommand(f.kernel)
		if err != nil {
			return &exitError{exitUsage, err}
		}
		l = adapter.Subprocess{Argv: argv}
	}
	opt := runner.Options{Launcher: l, Tags: f.tags, Concurrency: f.jobs, ScenarioTimeout: f.timeout}
	if !f.quiet {
		opt.Progress = cmd.ErrOrStderr()
	}
	if f.features != "" {
		if _, err := os.Stat(f.features); err != nil {
			return &exitError{exitUsage, err}
		}
		opt.FS, opt.Root = os.DirFS(f.features), "."
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	r, err := runner.Run(ctx, opt)
	incomplete := errors.Is(err, runner.ErrIncomplete)
	if err != nil && !incomplete {
		return &exitError{exitUsage, err}
	}
	if err := writeReports(r, f); err != nil {
		return &exitError{exitUsage, err}
	}
	if err := report.WriteText(cmd.OutOrStdout(), r); err != nil {
		return &exitError{exitUsage, err}
	}
	if incomplete {
		return &exitError{exitIncomplete, errors.New("the run was interrupted before every scenario had a verdict")}
	}
	if failing := r.Failing(f.require); len(failing) > 0 {
		return &exitError{exitFailed, fmt.Errorf("%d requirements at level %s fail or err", len(failing), f.require)}
	}
	return nil
}

func writeReports(r *report.Report, f runFlags) error {
	outs := []struct {
		path  string
		write func(io.Writer, *report.Report) error
	}{{f.jsonOut, report.WriteJSON}, {f.junitOut, report.WriteJUnit}, {f.mdOut, report.WriteMarkdown}}
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		if err := writeFile(o.path, func(w io.Writer) error { return o.write(w, r) }); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, write func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(fh); err != nil {
		fh.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return fh.Close()
}
