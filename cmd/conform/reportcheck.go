package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/agentconform/conform/harness/provenance"
	"github.com/agentconform/conform/harness/report"
)

func newReportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Work with report files a run wrote",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "check FILE...",
		Short: "Say whether report files come from this conform's suite",
		Long: `Read the suite digest each report file names (JSON, Markdown, HTML, JUnit
XML or SVG badge, as conform run writes them) and compare it with the digest
of the suite built into this conform: its requirement catalog and feature
files. A published report whose digest differs was made by another suite:
its scenarios, checks or requirement wording may have changed since, and
it should be regenerated. A report that names no digest (written before
reports carried one) is stale too. The commit each report was built from is
printed beside it, as a place to start looking.

Exit status: 0 when every file comes from this suite, 1 when any is stale
or names no digest (each is named), 2 when a file cannot be read or is not
a conform report.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return checkReports(cmd, args) },
	})
	return cmd
}

func checkReports(cmd *cobra.Command, files []string) error {
	out := cmd.OutOrStdout()
	current := provenance.SuiteDigest()
	var stale, bad []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(out, "unreadable  %s: %v\n", f, unwrapPath(err))
			bad = append(bad, f)
			continue
		}
		digest, format, err := report.SuiteDigestOf(data)
		switch {
		case errors.Is(err, report.ErrNoProvenance):
			fmt.Fprintf(out, "stale       %s: this %s %v (written before reports carried one); regenerate it\n", f, format, err)
			stale = append(stale, f)
		case err != nil:
			fmt.Fprintf(out, "not checked %s: it %v\n", f, err)
			bad = append(bad, f)
		case digest != current:
			fmt.Fprintf(out, "stale       %s: made by suite %s, this conform's suite is %s%s; regenerate it\n",
				f, provenance.Short(digest), provenance.Short(current), builtFrom(data, format))
			stale = append(stale, f)
		default:
			fmt.Fprintf(out, "current     %s (%s, suite %s)\n", f, format, provenance.Short(digest))
		}
	}
	switch {
	case len(bad) > 0:
		return &exitError{exitUsage, fmt.Errorf("%d of %d files could not be checked: %v", len(bad), len(files), bad)}
	case len(stale) > 0:
		// Exit 1 prints no error of its own: the summary goes with the lines.
		fmt.Fprintf(out, "%d of %d reports do not come from this conform's suite (%s): regenerate them\n", len(stale), len(files), provenance.Short(current))
		return &exitError{exitFailed, nil}
	}
	return nil
}

// builtFrom names the commit a JSON report was built from, when it says.
func builtFrom(data []byte, format string) string {
	if format != "JSON report" {
		return ""
	}
	var r report.Report
	if err := r.UnmarshalJSON(data); err != nil || r.Tool.Commit == "" {
		return ""
	}
	return " (the report was built from commit " + r.Tool.Commit + ")"
}

// staleSuite is the warning a report rendered again (conform merge) carries
// when the suite that made it is not this conform's, "" when it is.
func staleSuite(t report.Tool) string {
	current := provenance.SuiteDigest()
	switch t.SuiteDigest {
	case current:
		return ""
	case "":
		return fmt.Sprintf("the reports name no suite digest (written before reports carried one); this conform's suite is %s, and its scenarios or checks may have changed since", provenance.Short(current))
	}
	return fmt.Sprintf("the reports were made by suite %s, this conform's is %s: scenarios or checks may have changed since; run the suite again for verdicts of the current one", provenance.Short(t.SuiteDigest), provenance.Short(current))
}
