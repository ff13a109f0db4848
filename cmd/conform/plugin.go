package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/baseline"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/harness/shard"
	"github.com/agentconform/conform/pluginconform"
	"github.com/agentconform/conform/pluginconform/category"
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/spec"
)

type pluginFlags struct {
	plugin, config, allowEffects, require  string
	category                               string
	jsonOut, junitOut, mdOut               string
	htmlOut, badgeOut, badgeJSON           string
	env, processBacked                     []string
	cases, hookCases, repeat               int
	baseline                               string
	strictBaseline                         bool
	shard, bundle                          string
	seed                                   uint64
	multiplier                             float64
	callTimeout, hookTimeout, startTimeout time.Duration
	quiet                                  bool
}

func newPluginCmd() *cobra.Command {
	var f pluginFlags
	cmd := &cobra.Command{
		Use:   "plugin",
		Short: "Check a plugin (go-plugin/gRPC) against its category's profile: tool provider, model provider, ...",
		Long: `Check a plugin of the pluggableharness ecosystem — a tool provider, which may
also be a hook subscriber — over the protocol it already speaks: conform
launches --plugin "CMD ARGS" through hashicorp/go-plugin exactly as a kernel
does (the shared magic cookie, protocol version 1, plugin key "tool", gRPC;
only PATH, HOME and TMPDIR from conform's environment, plus --env), serves
the kernel callback service on broker stream 1, and gives a verdict on every
PL requirement (conform list shows the kernel profile; the PL rows are in
spec/requirements.json).

GetSchema's declarations are checked one by one; then every operation is
invoked with arguments generated from its own input_schema (rapid; a failure
is shrunk to a minimal input), with arguments broken in one place, cancelled
mid-stream and previewed; what the plugin emitted is rendered; every hook
point it declares gets generated payloads in every mode. A sensitive
configuration value (yours from --config, or a canary conform makes up for a
required one you leave out) must never come back.

Resource operations run only with --allow-effects DIR: every call then gets
DIR as its working directory. Without it they are not run, and the report
says which checks that left unreached.

The category is told from what the plugin serves (gRPC reflection, or
which category's service answers Describe), or given with --category:
tool (tool providers and hook subscribers, the PL rows), model (model
providers, the MP rows), and any other registered category; each is
launched with its own plugin key and judged against its own profile.

--shard K/N runs slice K of N of the generated cases (its share of --cases
and --hook-cases under a seed derived from --seed, which it needs); the
fixed checks run in every slice, whose report makes no compliance claim
until conform merge folds every slice (a row fails if any slice failed
it). --bundle DIR writes DIR/<ID>/bundle.json for every failing or
erroring requirement: the command that repeats the run, its seed, and the
failing checks with their shrunk inputs (the engines keep no log of calls).

Exit status: 0 when no requirement at the --require level fails or errs
(checks that were not reached are printed as prominently as failures, but
do not fail the run); 1 when one does; 2 when the plugin could not be
launched or configured at all, or on a usage error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPlugin(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.plugin, "plugin", "", `the plugin's command, e.g. "./my-plugin" or "node plugin.js" (required)`)
	fl.StringVar(&f.category, "category", "", "the plugin's category ("+strings.Join(category.Names(), ", ")+"); empty: told from the services it serves")
	fl.StringVar(&f.config, "config", "", "a JSON object file handed to Configure")
	fl.StringVar(&f.allowEffects, "allow-effects", "", "run resource operations, in this scratch folder (created if missing; every call's working directory)")
	fl.StringVar(&f.require, "require", "must", "level that must pass for exit 0: must, should or all (any case)")
	fl.StringVar(&f.jsonOut, "report-json", "", "write the JSON report to this file")
	fl.StringVar(&f.junitOut, "junit", "", "write a JUnit XML report to this file")
	fl.StringVar(&f.mdOut, "markdown", "", "write a Markdown summary to this file")
	fl.StringVar(&f.htmlOut, "html", "", "write a self-contained HTML report to this file")
	fl.StringVar(&f.badgeOut, "badge", "", "write an SVG badge to this file")
	fl.StringVar(&f.badgeJSON, "badge-json", "", "write the badge as a shields.io endpoint JSON document to this file")
	fl.StringArrayVar(&f.env, "env", nil, "give the plugin this variable of conform's environment (NAME) or this value (NAME=VALUE); repeatable")
	fl.StringSliceVar(&f.processBacked, "process-backed", nil, "operations that run a child process: they must report exit_status, and no other operation may (comma-separated or repeated)")
	fl.IntVar(&f.cases, "cases", 100, "generated cases per operation property")
	fl.IntVar(&f.hookCases, "hook-cases", 25, "generated payloads per hook point and mode")
	fl.Uint64Var(&f.seed, "seed", 0, "seed of the generated cases (0: a random one, printed in the report)")
	fl.Float64Var(&f.multiplier, "timeout-multiplier", 1, "scale every duration (call, hook and start timeouts, grace periods) by this factor")
	fl.DurationVar(&f.callTimeout, "call-timeout", 10*time.Second, "time one call may take before the plugin is declared hung")
	fl.DurationVar(&f.hookTimeout, "hook-timeout", 2*time.Second, "the deadline set on every DispatchHook")
	fl.DurationVar(&f.startTimeout, "start-timeout", 10*time.Second, "time the plugin may take to print its handshake line")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no per-group progress")
	fl.IntVar(&f.repeat, "repeat", 1, "check the plugin this many times with the same seed and report any verdict that varied (exit 1 on any variation)")
	fl.StringVar(&f.baseline, "baseline", "", "known failures (JSON or YAML, spec/baseline.schema.json, IDs of the plugin's profile: PL, MP, CP or MM): a listed failure is reported as expected fail and does not fail the run")
	fl.BoolVar(&f.strictBaseline, "strict-baseline", false, "a baseline entry that no longer fails (stale) fails the run")
	fl.StringVar(&f.shard, "shard", "", "run slice K of N (e.g. 2/4): its share of --cases and --hook-cases under a seed derived from --seed (required), the fixed checks in every slice; conform merge folds the slices")
	fl.StringVar(&f.bundle, "bundle", "", "write a repro bundle (DIR/<ID>/bundle.json: command, seed, failing checks with their shrunk inputs) for every failing or erroring requirement under this folder")
	return cmd
}

func checkPluginFlags(f *pluginFlags) error {
	f.require = strings.ToLower(strings.TrimSpace(f.require))
	switch {
	case strings.TrimSpace(f.plugin) == "":
		return usage("--plugin is required: the plugin's command, e.g. --plugin ./my-plugin")
	case f.require != "must" && f.require != "should" && f.require != "all":
		return usage("--require must be must, should or all, not %q", f.require)
	case f.cases < 1 || f.hookCases < 1 || f.repeat < 1:
		return usage("--cases, --hook-cases and --repeat must be at least 1")
	case f.strictBaseline && f.baseline == "":
		return usage("--strict-baseline needs --baseline FILE")
	case !(f.multiplier >= 1) || f.multiplier > 1000:
		return usage("--timeout-multiplier must be between 1 and 1000, not %v", f.multiplier)
	case f.callTimeout <= 0 || f.hookTimeout <= 0 || f.startTimeout <= 0:
		return usage("--call-timeout, --hook-timeout and --start-timeout must be positive")
	}
	sh, err := shard.Parse(f.shard)
	switch {
	case err != nil:
		return usage("--shard %v", err)
	case !sh.Whole() && f.seed == 0:
		// Slices of one campaign draw from seeds derived from one base; with
		// a random base each, two slices could draw the same inputs.
		return usage("--shard needs --seed N: every slice derives its seed from the same --seed, so the slices draw different inputs")
	case !sh.Whole() && (sh.N > f.cases || sh.N > f.hookCases):
		return usage("--shard %s: every slice needs a generated case, and --cases %d or --hook-cases %d is fewer than %d slices", sh, f.cases, f.hookCases, sh.N)
	}
	return nil
}

func runPlugin(cmd *cobra.Command, f pluginFlags) error {
	if err := checkPluginFlags(&f); err != nil {
		return err
	}
	argv, err := adapter.ParseCommand(f.plugin)
	if err != nil {
		return usage("--plugin: %v", err)
	}
	extra, err := adapter.ResolveEnv(f.env, os.LookupEnv)
	if err != nil {
		return usage("%v", err)
	}
	var cfg map[string]any
	if f.config != "" {
		if cfg, err = readPluginConfig(f.config); err != nil {
			return usage("--config %s: %v", f.config, err)
		}
	}
	opt := category.Options{
		Argv: argv, Env: launch.BaseEnv(os.LookupEnv, extra...), Config: cfg, AllowEffects: f.allowEffects,
		ProcessBacked: f.processBacked, Cases: f.cases, HookCases: f.hookCases, Seed: f.seed,
		CallTimeout: f.callTimeout, HookTimeout: f.hookTimeout, StartTimeout: f.startTimeout, Multiplier: f.multiplier,
	}
	sh, _ := shard.Parse(f.shard) // checked by checkPluginFlags
	applyPluginShard(&opt, sh, f.seed, f.cases, f.hookCases)
	cg, err := pluginCategory(cmd, f.category, opt)
	if err != nil {
		return err
	}
	var known *baseline.File
	if f.baseline != "" {
		cat, err := spec.LoadProfile(cg.Profile)
		if err != nil {
			return &exitError{exitUsage, err}
		}
		if known, err = baseline.Load(f.baseline, cat); err != nil {
			return usage("--baseline %s: %v", f.baseline, unwrapPath(err))
		}
	}
	outs, err := prepareReports(runFlags{jsonOut: f.jsonOut, junitOut: f.junitOut, mdOut: f.mdOut, htmlOut: f.htmlOut, badgeOut: f.badgeOut, badgeJSON: f.badgeJSON})
	if err != nil {
		return err
	}
	if !f.quiet {
		opt.Progress = cmd.ErrOrStderr()
	}
	r, stats, err := repeatPlugin(cmd, cg, opt, f.repeat)
	if r != nil {
		r.Tool = runner.ToolOf(nil, "")
	}
	if r != nil && !sh.Whole() {
		var serr error
		if r, serr = asPluginShard(r, cg.Profile, sh, f.seed, f.cases); serr != nil {
			return &exitError{exitUsage, serr}
		}
	}
	var lerr *pluginconform.LaunchError
	switch {
	case r == nil:
		return &exitError{exitUsage, err}
	case errors.As(err, &lerr):
		report.Redact(r, nil)
		werr := writeReports(r, outs)
		_ = report.WriteText(cmd.OutOrStdout(), r)
		return &exitError{exitUsage, errors.Join(fmt.Errorf("the plugin could not be checked: %s", lerr.Reason), werr)}
	}
	report.Redact(r, nil)
	if known != nil {
		r.Baseline = baseline.Apply(r, known, f.baseline, f.strictBaseline)
	}
	werr := writeReports(r, withBaselineSections(outs))
	if f.bundle != "" {
		seed := stats.Seed
		if !sh.Whole() {
			seed = f.seed
		}
		dirs, err := writePluginBundles(f.bundle, r, cg, f, sh, seed)
		werr = errors.Join(werr, err)
		if len(dirs) > 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "conform: %d repro bundles (one per failing requirement) under %s\n", len(dirs), f.bundle)
		}
	}
	if err := report.WriteText(cmd.OutOrStdout(), r); err != nil {
		werr = errors.Join(werr, err)
	}
	if err := pluginconform.WriteUnreached(cmd.OutOrStdout(), r); err != nil {
		werr = errors.Join(werr, err)
	}
	if !f.quiet && stats.GeneratedTime > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "conform: %d generated calls in %v (%.0f/s), %d launches, seed %d\n",
			stats.GeneratedCalls, stats.GeneratedTime.Round(time.Millisecond), float64(stats.GeneratedCalls)/stats.GeneratedTime.Seconds(), stats.Launches, stats.Seed)
	}
	if err := baseline.WriteText(cmd.OutOrStdout(), r.Baseline); err != nil {
		werr = errors.Join(werr, err)
	}
	if werr != nil {
		return &exitError{exitUsage, fmt.Errorf("the run finished, but not every report was written:\n%w", werr)}
	}
	return gate(r, f.require)
}

// pluginCategory is the --category named, or the one the plugin serves.
func pluginCategory(cmd *cobra.Command, name string, opt category.Options) (category.Category, error) {
	if name != "" {
		c, ok := category.Lookup(name)
		if !ok {
			return c, usage("--category must be one of %s, not %q", strings.Join(category.Names(), ", "), name)
		}
		return c, nil
	}
	c, err := category.Detect(cmd.Context(), opt)
	var nl *category.NotLaunched
	if errors.As(err, &nl) {
		// Nothing tells the category of a plugin that never handshook; the
		// tool profile's report then says, row by row, that it could not be
		// launched.
		c, _ = category.Lookup(launch.KeyTool)
		fmt.Fprintf(cmd.ErrOrStderr(), "conform: the plugin could not be launched, so its category is unknown; reporting against the %s profile (--category chooses)\n", c.Profile)
		return c, nil
	}
	if err != nil {
		return c, &exitError{exitUsage, fmt.Errorf("the plugin's category could not be told (give --category to choose one): %w", err)}
	}
	return c, nil
}

// repeatPlugin checks the plugin n times with one seed and folds the runs
// into the first run's report, with its stability section.
func repeatPlugin(cmd *cobra.Command, cg category.Category, opt category.Options, n int) (*report.Report, category.Stats, error) {
	first, stats, err := cg.Run(cmd.Context(), opt)
	if n <= 1 || err != nil || first == nil {
		return first, stats, err
	}
	opt.Seed = stats.Seed
	runs := []*report.Report{first}
	for i := 1; i < n; i++ {
		r, _, err := cg.Run(cmd.Context(), opt)
		if r == nil {
			return nil, stats, err
		}
		runs = append(runs, r)
	}
	first.Stability = runner.Stability(runs)
	return first, stats, nil
}

func readPluginConfig(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if cfg == nil {
		return nil, errors.New("not a JSON object")
	}
	return cfg, nil
}
