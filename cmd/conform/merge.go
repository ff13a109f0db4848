package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentconform/conform/harness/baseline"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/shard"
)

type mergeFlags struct {
	out            runFlags
	require        string
	baseline       string
	strictBaseline bool
}

func newMergeCmd() *cobra.Command {
	var f mergeFlags
	cmd := &cobra.Command{
		Use:   "merge A.json B.json ...",
		Short: "Fold the JSON reports of a sharded run into one report",
		Long: `Fold JSON reports into one report with the same verdict rules as a single
run: every requirement is decided over the scenarios of all the reports, so
one covered in several shards is decided across all of them.

Plugin reports (conform plugin --shard K/N) merge the same way, decided with
their category's profile: every slice of one campaign (one --seed), of one
plugin and one category; reports of two categories are refused, naming
both.

The reports must come from one kernel (name, version, command, declared
capabilities and readings), one conform, one protocol version and this
conform's requirement catalog. Shard reports (conform run --shard K/N) must
be every slice of one run, each once; other reports must not share a
scenario. Anything else is refused, naming why.

The merged report is written like a run's (--report-json, --junit,
--markdown, --html, --badge, --badge-json) and printed; --require, --baseline and --strict-baseline gate
it as they gate a run.

Exit status: 0 when the merged run passes its gate, 1 when it does not, 2
when the reports cannot be read or merged, 3 when a shard was interrupted.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runMerge(cmd, f, args) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out.jsonOut, "report-json", "", "write the merged JSON report to this file")
	fl.StringVar(&f.out.junitOut, "junit", "", "write the merged JUnit XML report to this file")
	fl.StringVar(&f.out.mdOut, "markdown", "", "write the merged Markdown summary to this file")
	fl.StringVar(&f.out.htmlOut, "html", "", "write the merged self-contained HTML report to this file")
	fl.StringVar(&f.out.badgeOut, "badge", "", "write the merged run's SVG badge to this file")
	fl.StringVar(&f.out.badgeJSON, "badge-json", "", "write the merged run's badge as a shields.io endpoint JSON document to this file")
	fl.StringVar(&f.require, "require", "must", "level that must pass for exit 0: must, should or all")
	fl.StringVar(&f.baseline, "baseline", "", "known failures (JSON or YAML), as for conform run")
	fl.BoolVar(&f.strictBaseline, "strict-baseline", false, "a baseline entry that no longer fails fails the merge")
	return cmd
}

func runMerge(cmd *cobra.Command, f mergeFlags, args []string) error {
	f.out.require = strings.ToLower(strings.TrimSpace(f.require))
	switch f.out.require {
	case "must", "should", "all":
	default:
		return usage("--require must be must, should or all, not %q", f.require)
	}
	if f.strictBaseline && f.baseline == "" {
		return usage("--strict-baseline needs --baseline FILE")
	}
	var srcs []shard.Source
	var reps []*report.Report
	var errs []string
	for _, a := range args {
		r, err := readReport(a)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", a, err))
			continue
		}
		srcs = append(srcs, shard.Source{Name: a, Report: r})
		reps = append(reps, r)
	}
	if len(errs) > 0 {
		return usage("%s", strings.Join(errs, "\n"))
	}
	// The reports are decided with their own profile's catalog: the
	// kernel's, or one plugin category's (conform plugin --shard).
	profile, err := oneProfile("conform merge", args, reps)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	if err := sameCampaign(srcs); err != nil {
		return &exitError{exitUsage, err}
	}
	cat, err := profileCatalog(profile)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	var bl *baseline.File
	if f.baseline != "" {
		if bl, err = baseline.Load(f.baseline, cat); err != nil {
			return usage("--baseline %s: %v", f.baseline, unwrapPath(err))
		}
	}
	outs, err := prepareReports(f.out)
	if err != nil {
		return err
	}
	outs = withBaselineSections(outs)
	r, err := shard.Merge(cat, srcs)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	report.Redact(r, nil)
	if w := staleSuite(r.Tool); w != "" {
		r.Warnings = append(r.Warnings, w)
	}
	if bl != nil {
		baseline.Apply(r, bl, f.baseline, f.strictBaseline)
	}
	werr := writeReports(r, outs)
	if err := report.WriteText(cmd.OutOrStdout(), r); err != nil {
		werr = errors.Join(werr, err)
	}
	if err := baseline.WriteText(cmd.OutOrStdout(), r.Baseline); err != nil {
		werr = errors.Join(werr, err)
	}
	switch {
	case werr != nil:
		return &exitError{exitUsage, fmt.Errorf("the merge finished, but not every report was written:\n%w", werr)}
	case r.Interrupted:
		return &exitError{exitIncomplete, errors.New("a merged report was interrupted before every scenario had a verdict")}
	}
	return gate(r, f.out.require)
}

// sameCampaign refuses plugin shards of different campaigns: slices cut
// from two --seed values would draw overlapping inputs and leave others
// undrawn, a campaign nobody ran.
func sameCampaign(srcs []shard.Source) error {
	first := pluginShardSeed(srcs[0].Report)
	for _, s := range srcs[1:] {
		if seed := pluginShardSeed(s.Report); seed != first {
			return fmt.Errorf("the reports cannot be merged: %s is a slice of the campaign of --seed %d and %s of --seed %d", srcs[0].Name, first, s.Name, seed)
		}
	}
	return nil
}
