package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentconform/conform/harness/baseline"
	"github.com/agentconform/conform/spec"
)

func newBaselineCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "baseline",
		Short: "Make a baseline of known failures for conform run --baseline",
		Long: `A baseline lists the requirements a kernel is known to fail, each with a
reason and optionally a tracking link (spec/baseline.schema.json; JSON, or
YAML when the file name ends in .yaml or .yml). conform run --baseline FILE
then reports those failures as expected fail without failing the run, fails
the run on any failure the baseline does not list, and reports a listed item
that now passes as stale (a failure with --strict-baseline), so the
baseline shrinks as the kernel improves.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newBaselineWriteCmd())
	return cmd
}

func newBaselineWriteCmd() *cobra.Command {
	var from string
	var scenarios, force bool
	cmd := &cobra.Command{
		Use:   "write FILE --from REPORT.json",
		Short: "Write a baseline listing every requirement a report has failing or in error",
		Long: `Write a baseline listing every requirement the JSON report has failing or
in error, each with the report's reason and date; edit the reasons and add
tracking links before committing it. --scenarios pins each entry to the
scenarios it fails in, so that the same requirement failing in another
scenario still fails the run. A shard's report is refused: merge the
shards first (conform merge).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := args[0]
			if from == "" {
				return usage("--from REPORT.json is required: the report whose failures the baseline lists")
			}
			if _, err := os.Stat(out); err == nil && !force {
				return usage("%s exists; give --force to replace it", out)
			}
			r, err := readReport(from)
			if err != nil {
				return usage("--from %s: %v", from, err)
			}
			f, err := baseline.FromReport(r, baseline.FromOptions{Scenarios: scenarios, Source: filepath.Base(from)})
			if err != nil {
				return usage("--from %s: %v", from, err)
			}
			data, err := baseline.Encode(f, out)
			if err != nil {
				return &exitError{exitUsage, err}
			}
			// Every profile's IDs: the report may be a plugin's.
			cat, err := spec.LoadAll()
			if err != nil {
				return &exitError{exitUsage, err}
			}
			// What is written must read back: the same check run applies.
			if _, err := baseline.Parse(data, isYAMLName(out), cat); err != nil {
				return &exitError{exitUsage, fmt.Errorf("the baseline written would not read back: %v", err)}
			}
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return usage("%s: %v", out, unwrapPath(err))
			}
			if err := os.WriteFile(out, data, 0o644); err != nil {
				return usage("%s: %v", out, unwrapPath(err))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d expected failures from %s\n", out, len(f.ExpectedFailures), from)
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the JSON report (conform run --report-json, or conform merge's) whose failures to list")
	cmd.Flags().BoolVar(&scenarios, "scenarios", false, "pin each entry to the scenarios it fails in")
	cmd.Flags().BoolVar(&force, "force", false, "replace FILE if it exists")
	return cmd
}

func isYAMLName(path string) bool {
	switch filepath.Ext(path) {
	case ".yaml", ".yml", ".YAML", ".YML":
		return true
	}
	return false
}
