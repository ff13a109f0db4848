package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/agentconform/conform/harness/diff"
	"github.com/agentconform/conform/harness/report"
)

func newDiffCmd() *cobra.Command {
	var md string
	cmd := &cobra.Command{
		Use:   "diff OLD.json NEW.json",
		Short: "List the requirements and scenarios whose status changed between two reports",
		Long: `List the requirements and scenarios whose status changed between two JSON
reports, regressions first. A regression is anything that now fails or errs
and did not before. Both reports must be of one profile: two kernel runs, or
two conform plugin runs of one category (tool, model, context, memory);
reports of different profiles are refused, naming both. --markdown FILE also writes the list as Markdown for a
pull-request comment ("-": to stdout, instead of the text).

Exit status: 0 when nothing regressed, 1 on any regression, 2 when a report
cannot be read.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			old, err := readReport(args[0])
			if err != nil {
				return usage("%s: %v", args[0], err)
			}
			new, err := readReport(args[1])
			if err != nil {
				return usage("%s: %v", args[1], err)
			}
			if _, err := oneProfile("conform diff", args, []*report.Report{old, new}); err != nil {
				return usage("%v", err)
			}
			res := diff.Compare(args[0], old, args[1], new)
			if md != "-" {
				if err := diff.WriteText(cmd.OutOrStdout(), res); err != nil {
					return &exitError{exitUsage, err}
				}
			}
			if md != "" {
				if err := writeTo(cmd.OutOrStdout(), md, func(w io.Writer) error { return diff.WriteMarkdown(w, res) }); err != nil {
					return usage("--markdown %s: %v", md, unwrapPath(err))
				}
			}
			if n := res.Regressions(); n > 0 {
				return &exitError{exitFailed, fmt.Errorf("%d regressions", n)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&md, "markdown", "", `also write the differences as Markdown to this file ("-": stdout)`)
	return cmd
}

// writeTo writes to path, or to stdout when path is "-".
func writeTo(stdout io.Writer, path string, write func(io.Writer) error) error {
	if path == "-" {
		return write(stdout)
	}
	if err := checkWritable(path); err != nil {
		return errors.New(err.Error())
	}
	return writeFile(path, write)
}
