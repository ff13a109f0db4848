package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentconform/conform/harness/fuzz"
	"github.com/agentconform/conform/harness/shard"
)

// fuzzGCPercent is the garbage collector's target during conform fuzz
// (GOGC overrides it).
const fuzzGCPercent = 400

type fuzzFlags struct {
	kernel, out string
	cases       int
	seed        uint64
	realTime    bool
	shrink      time.Duration
	timeout     time.Duration
	verbose     bool
	shard       string
	workers     int
}

func newFuzzCmd() *cobra.Command {
	var f fuzzFlags
	cmd := &cobra.Command{
		Use:   "fuzz",
		Short: "Run generated sessions against a kernel and check the loop invariants",
		Long: `Run generated sessions against a kernel and check the loop invariants.

conform fuzz generates whole sessions: model scripts that mix replies without
tool calls and calls of every kind with repeated and varied arguments, usage
figures and price tiers, bounds of each dimension and doom-loop thresholds.
Each session runs as a one-scenario feature and must keep every invariant:
the step order of every turn, at most max_turns + 1 model requests, exactly
one tool-less request after a fired bound and a status naming the bound that
fired first, the doom loop firing exactly when the last threshold calls are
identical, costs that follow the declared pricing and add up, and one end
of the session.

A failure is shrunk to a minimal session and written to --out as
seed-<seed>/conform-fuzz-<seed>.feature; re-run exactly that case with
"conform run --features <that folder> [--kernel CMD]".

Without --kernel, the embedded reference kernel is checked in-process.

Exit status: 0 when every generated session kept the invariants, 1 when one
did not, 2 on a usage or harness error, 3 when interrupted.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runFuzz(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.kernel, "kernel", "", `kernel adapter command, e.g. "python3 kernel.py" (default: the embedded reference kernel)`)
	fl.IntVar(&f.cases, "cases", fuzz.DefaultCases, "number of sessions to generate")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the generator (0: a random one, printed)")
	fl.StringVar(&f.out, "out", "conform-fuzz", "folder under which the shrunk failing case is written (in seed-<seed>/), relative to the current folder")
	fl.BoolVar(&f.realTime, "real-time", true, "also generate wall-clock cases that take real time (a tenth of a second or so each)")
	fl.DurationVar(&f.shrink, "shrink-time", 30*time.Second, "time spent shrinking a failure")
	fl.DurationVar(&f.timeout, "timeout", 10*time.Second, "time one session may take before the kernel is declared hung")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "show the generator's progress")
	fl.IntVar(&f.workers, "workers", runtime.NumCPU()+1, "sessions run at once while searching, each on a kernel of its own (0 or 1: one at a time); the cases, their order and the shrunk failure do not depend on it")
	fl.StringVar(&f.shard, "shard", "", "run slice K of N of the campaign (e.g. 2/4): its share of --cases under a seed derived from --seed, so a CI matrix covers the campaign once")
	return cmd
}

func runFuzz(cmd *cobra.Command, f fuzzFlags) error {
	switch {
	case f.cases < 1:
		return usage("--cases must be at least 1, not %d", f.cases)
	case f.timeout <= 0:
		return usage("--timeout must be positive, not %v", f.timeout)
	case f.workers < 0:
		return usage("--workers must be 0 or more, not %d", f.workers)
	case f.shrink <= 0:
		return usage("--shrink-time must be positive, not %v", f.shrink)
	}
	sh, err := shard.Parse(f.shard)
	if err != nil {
		return usage("--shard %v", err)
	}
	l, err := launcher(cmd, f.kernel)
	if err != nil {
		return err
	}
	if !sh.Whole() {
		// Each slice has its own seed, derived from --seed (or picked at
		// random without one) and printed, so a failure reproduces with
		// --seed alone.
		cases := shard.Cases(f.cases, sh)
		if cases == 0 {
			fmt.Fprintf(cmd.OutOrStdout(), "conform fuzz: shard %s has no case (--cases %d over %d shards)\n", sh, f.cases, sh.N)
			return nil
		}
		if f.seed != 0 {
			f.seed = shard.Seed(f.seed, sh)
		}
		fmt.Fprintf(cmd.OutOrStdout(), "conform fuzz: shard %s runs %d of %d cases\n", sh, cases, f.cases)
		f.cases = cases
	}
	opt := fuzz.Options{Launcher: l, Cases: f.cases, Seed: f.seed, RealTime: f.realTime,
		OutDir: f.out, ShrinkTime: f.shrink, ScenarioTimeout: f.timeout, Workers: f.workers}
	if f.verbose {
		opt.Log = cmd.ErrOrStderr()
	}
	if os.Getenv("GOGC") == "" {
		// A generated session allocates about a megabyte and keeps almost
		// nothing once it is judged: with the default target the collector
		// ran every few sessions and took a fifth of the campaign's CPU.
		// Four times the target costs some tens of megabytes more.
		defer debug.SetGCPercent(debug.SetGCPercent(fuzzGCPercent))
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := fuzz.Run(ctx, opt)
	out := cmd.OutOrStdout()
	switch {
	case errors.Is(err, ctx.Err()) && ctx.Err() != nil:
		fmt.Fprintf(out, "conform fuzz: interrupted after %d sessions (seed %d)\n", res.Cases, res.Seed)
		return &exitError{exitIncomplete, errors.New("interrupted")}
	case err != nil:
		return &exitError{exitUsage, err}
	}
	fmt.Fprintf(out, "conform fuzz: %s, seed %d\n", res.Kernel, res.Seed)
	if !res.Failed {
		fmt.Fprintf(out, "%d generated sessions kept every invariant (%v)\n", res.Cases, res.Elapsed.Round(time.Millisecond))
		return nil
	}
	fmt.Fprintf(out, "session %d broke an invariant of %s; shrunk in %d runs (%v)\n\n%s\n", res.FoundAfter, strings.Join(res.Requirements, ", "), res.Cases, res.Elapsed.Round(time.Millisecond), res.Failure)
	if res.FeaturePath != "" {
		fmt.Fprintf(out, "\nThe shrunk case is %s; re-run it with:\n  conform run --features %s", res.FeaturePath, res.FeatureDir)
		if f.kernel != "" {
			fmt.Fprintf(out, " --kernel %q", f.kernel)
		}
		fmt.Fprintln(out)
	} else {
		fmt.Fprintf(out, "\n%s", res.Feature)
	}
	return &exitError{exitFailed, errors.New("a generated session broke an invariant")}
}
