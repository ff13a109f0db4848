package main

import (
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/agentconform/conform/features"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/spec"
)

// coverage maps each requirement ID to the scenarios (file:line) tagged
// with it in the embedded suite.
func coverage() (*spec.Catalog, map[string][]string, error) {
	cat, err := spec.Load()
	if err != nil {
		return nil, nil, err
	}
	_, infos, err := runner.LoadFeatures(features.FS, ".", cat)
	if err != nil {
		return nil, nil, err
	}
	cov := map[string][]string{}
	for _, in := range infos {
		for _, id := range in.Requirements {
			cov[id] = append(cov[id], fmt.Sprintf("features/%s:%d", in.File, in.Line))
		}
	}
	for _, v := range cov {
		sort.Strings(v)
	}
	return cat, cov, nil
}

func newListCmd() *cobra.Command {
	var area string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the requirements, their level and the scenarios covering each",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cat, cov, err := coverage()
			if err != nil {
				return &exitError{exitUsage, err}
			}
			if err := checkArea(cat, area); err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 2, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tLEVEL\tMATRIX\tSCENARIOS\tTITLE")
			covered := 0
			shown := 0
			for _, r := range cat.Requirements {
				if area != "" && !strings.EqualFold(r.Area, area) {
					continue
				}
				shown++
				m := ""
				if r.Matrix {
					m = fmt.Sprintf("#%d", r.MatrixRow)
				}
				if len(cov[r.ID]) > 0 {
					covered++
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\n", r.ID, r.Level, m, len(cov[r.ID]), r.Title)
			}
			w.Flush()
			fmt.Fprintf(cmd.OutOrStdout(), "\n%d of %d requirements covered by at least one scenario; %d not tested yet.\n", covered, shown, shown-covered)
			return nil
		},
	}
	cmd.Flags().StringVar(&area, "area", "", "only this area (TA, HD, PA, SA, ER, DF)")
	return cmd
}

// checkArea refuses an area the catalog does not declare: an empty list
// would read as "nothing to cover".
func checkArea(cat *spec.Catalog, area string) error {
	if area == "" {
		return nil
	}
	known := make([]string, len(cat.Areas))
	for i, a := range cat.Areas {
		if strings.EqualFold(a.Prefix, area) {
			return nil
		}
		known[i] = a.Prefix
	}
	return usage("--area %q is not an area; the areas are %s", area, strings.Join(known, ", "))
}

func newExplainCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "explain ID",
		Short: "Explain one requirement: statement, level, source and covering scenarios",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cat, cov, err := coverage()
			if err != nil {
				return &exitError{exitUsage, err}
			}
			id := strings.ToUpper(strings.TrimPrefix(args[0], "@"))
			r, ok := cat.Get(id)
			if !ok {
				return &exitError{exitUsage, fmt.Errorf("no requirement %q in the catalog (see conform list)", args[0])}
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "%s  %s  [%s]\n\n%s\n\n", r.ID, r.Title, r.Level, r.Statement)
			fmt.Fprintf(out, "Area:       %s (%s)\n", r.Area, cat.AreaOf(r.ID).Name)
			if r.Matrix {
				fmt.Fprintf(out, "Matrix row: %d\n", r.MatrixRow)
			}
			fmt.Fprintf(out, "Source:     %s\n", r.Source)
			if r.Capability != "" {
				fmt.Fprintf(out, "Capability: %s (a kernel that does not declare it gets \"skipped\")\n", r.Capability)
			}
			if r.Unverifiable != "" {
				fmt.Fprintf(out, "Not verifiable from outside: %s\n", r.Unverifiable)
			}
			if len(cov[r.ID]) == 0 {
				fmt.Fprintln(out, "Scenarios:  none yet (reported as not_tested)")
			} else {
				fmt.Fprintln(out, "Scenarios:")
				for _, s := range cov[r.ID] {
					fmt.Fprintln(out, "  "+s)
				}
			}
			return nil
		},
	}
}
