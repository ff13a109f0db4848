package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteText writes the terminal summary: one line of requirement counts per
// area, then every failing or erroring requirement with its reason, then the
// compliance label.
func WriteText(w io.Writer, r *Report) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }

	p("conform: %s\n", kernelTitle(r.Kernel))
	p("scenarios: %s in %s\n\n", scenarioCounts(r), r.Duration.Round(time.Millisecond))

	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "area\t")
	for _, st := range RequirementStatuses() {
		fmt.Fprintf(tw, "%s\t", word(st))
	}
	fmt.Fprint(tw, "\t\n")
	row := func(prefix string, counts map[Status]int, name string) {
		fmt.Fprintf(tw, "%s\t", prefix)
		for _, st := range RequirementStatuses() {
			fmt.Fprintf(tw, "%d\t", counts[st])
		}
		// The name is left-aligned after the last cell; tabwriter right-aligns
		// only cells that end in a tab.
		fmt.Fprintf(tw, "\t%s\n", name)
	}
	for _, a := range r.Summary.ByArea {
		row(a.Prefix, a.Counts, a.Name)
	}
	row("total", r.Summary.Requirements, "")
	if err := tw.Flush(); err != nil {
		return err
	}

	var failing []RequirementResult
	for _, q := range r.Requirements {
		if q.Status == Fail || q.Status == Error {
			failing = append(failing, q)
		}
	}
	if len(failing) > 0 {
		p("\nFailing requirements:\n")
		for _, q := range failing {
			p("  %-5s %s [%s] %s", strings.ToUpper(string(q.Status)), q.ID, q.Level, q.Title)
			if !agentLoop(q) {
				p(" (deterministic-first profile)")
			}
			p("\n")
			for _, line := range strings.Split(q.Reason, "\n") {
				p("        %s\n", line)
			}
		}
	}

	p("\nCompliance: %s\n", r.Compliance.Label)
	return b.Flush()
}
