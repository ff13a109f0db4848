package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/bundle"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/internal/safetext"
)

type replayFlags struct {
	kernel     string
	show, full bool
	timeout    time.Duration
	multiplier float64
	env        []string
}

func newReplayCmd() *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay DIR",
		Short: "Re-run the scenario of a repro bundle, or show its exchange",
		Long: `Re-run exactly the scenario of a repro bundle (conform run --bundle)
against a kernel and say whether the outcome is the same: the same scenario
status and the same check outcomes in the same order. DIR is one bundle, or
a folder of bundles (each is replayed).

--kernel is required unless the bundle was recorded against the embedded
reference kernel: a bundle names the command it was recorded with, but a
bundle from someone else must not choose what runs on your machine.

--show prints the bundle as a transcript instead (the scenario, its
outcome, the kernel, every message in both directions with its time and
payload, and the kernel's stderr); nothing runs.

Exit status: 0 when every replay has the recorded outcome (or --show), 1
when one differs, 2 when a bundle cannot be read or the kernel not started.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runReplay(cmd, f, args[0]) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.kernel, "kernel", "", `kernel adapter command, e.g. "python3 kernel.py"`)
	fl.BoolVar(&f.show, "show", false, "print the bundle's exchange as a readable transcript; run nothing")
	fl.BoolVar(&f.full, "full", false, "with --show: print payloads whole, not cut at 240 characters")
	fl.DurationVar(&f.timeout, "timeout", 0, "scenario timeout (default: the one the bundle was recorded with)")
	fl.Float64Var(&f.multiplier, "timeout-multiplier", 0, "scale every duration (default: the bundle's)")
	fl.StringArrayVar(&f.env, "env", nil, "give the --kernel subprocess this variable (NAME) or value (NAME=VALUE); repeatable")
	return cmd
}

func runReplay(cmd *cobra.Command, f replayFlags, dir string) error {
	dirs, err := bundle.Find(dir)
	if err != nil {
		return usage("%v", unwrapPath(err))
	}
	var bundles []*bundle.Bundle
	for _, d := range dirs {
		b, err := bundle.Read(d)
		if err != nil {
			return usage("%v", err)
		}
		bundles = append(bundles, b)
	}
	out := cmd.OutOrStdout()
	if f.show {
		opt := bundle.ShowOptions{}
		if f.full {
			opt.PayloadChars = -1
		}
		for i, b := range bundles {
			if i > 0 {
				fmt.Fprintln(out)
			}
			if err := bundle.Show(out, b, opt); err != nil {
				return &exitError{exitUsage, err}
			}
		}
		return nil
	}
	if f.multiplier != 0 && !(f.multiplier >= 1 && f.multiplier <= 1000) {
		return usage("--timeout-multiplier must be between 1 and 1000, not %v", f.multiplier)
	}
	if f.timeout < 0 {
		return usage("--timeout must be positive, not %v", f.timeout)
	}
	var l adapter.Launcher
	if cmd.Flags().Changed("kernel") {
		if l, err = launcher(cmd, f.kernel); err != nil {
			return err
		}
		if l, err = withEnv(l, f.env); err != nil {
			return err
		}
	} else {
		for _, b := range bundles {
			if !strings.HasPrefix(b.Manifest.Kernel.Command, "in-process:") {
				return usage("give --kernel: %s was recorded with %s", b.Dir, safetext.Line(b.Manifest.Kernel.Command))
			}
		}
		l = embeddedKernel()
	}
	differ := 0
	for _, b := range bundles {
		v, _, err := bundle.Replay(cmd.Context(), b, l, bundle.ReplayOptions{ScenarioTimeout: f.timeout, TimeoutMultiplier: f.multiplier})
		if err != nil {
			// The kernel did not start, or the replay was interrupted: no
			// outcome to compare.
			return &exitError{exitUsage, fmt.Errorf("%s: %w", b.Dir, err)}
		}
		writeVerdict(cmd, b, v)
		if !v.Same {
			differ++
		}
	}
	if differ > 0 {
		return &exitError{exitFailed, fmt.Errorf("%d of %d replays had another outcome", differ, len(bundles))}
	}
	return nil
}

func writeVerdict(cmd *cobra.Command, b *bundle.Bundle, v bundle.Verdict) {
	out := cmd.OutOrStdout()
	m := b.Manifest.Scenario
	word := "SAME OUTCOME"
	if !v.Same {
		word = "DIFFERENT OUTCOME"
	}
	fmt.Fprintf(out, "%s  %s %s: recorded %s, replayed %s\n", word, safetext.Line(m.Ref()), safetext.Line(m.Name), v.Was, v.Now.Status)
	for _, d := range v.Differences {
		fmt.Fprintf(out, "  %s\n", safetext.Line(d))
	}
	if v.Now.Status == report.Fail || v.Now.Status == report.Error {
		fmt.Fprintf(out, "  now: %s\n", safetext.Line(firstLineOf(v.Now.Failure)))
	}
}

func firstLineOf(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
