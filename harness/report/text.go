package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentconform/conform/internal/safetext"
)

// WriteText writes the terminal summary: one line of requirement counts per
// area, then every failing or erroring requirement with its reason, then the
// compliance label.
//
// Secrets of conform's environment are redacted and every string is
// normalised (see package safetext): no escape sequence, bell, backspace or
// carriage return reaches the terminal raw, and kernel text cannot start a
// line of its own. Reasons keep their line breaks, each line indented.
func WriteText(w io.Writer, r *Report) error {
	return writeText(w, r, safetext.EnvironRedactor())
}

// maxChecksListed bounds the failing checks printed per requirement; the
// JSON report has them all.
const maxChecksListed = 10

func writeText(w io.Writer, r *Report, secrets *safetext.Redactor) error {
	b := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	line := func(s string) string { return safetext.Line(secrets.Redact(s)) }

	p("conform: %s\n", line(kernelTitle(r.Kernel)))
	if r.Interrupted {
		p("INTERRUPTED: the run was stopped before every scenario ran; %d scenarios were not run and no compliance claim is made\n", r.Summary.Scenarios[NotRun])
	}
	if r.Selection != "" {
		p("selection: %s (a selected run makes no compliance claim)\n", line(r.Selection))
	}
	for _, w := range r.Warnings {
		p("warning: %s\n", line(w))
	}
	p("scenarios: %s in %s\n\n", scenarioCounts(r), r.Duration.Round(time.Millisecond))

	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "area\t")
	for _, col := range countColumns {
		fmt.Fprintf(tw, "%s\t", word(Status(col)))
	}
	glue := r.hasGlue() // a column of its own: the adapter's failures are not the loop's
	if glue {
		fmt.Fprintf(tw, "%s\t", glueFailWord)
	}
	fmt.Fprint(tw, "\t\n")
	partialBy, partialAll := partialPasses(r)
	row := func(prefix string, counts map[Status]int, partial, glueFail int, name string) {
		fmt.Fprintf(tw, "%s\t", line(prefix))
		for _, n := range columnCounts(counts, partial) {
			fmt.Fprintf(tw, "%d\t", n)
		}
		if glue {
			fmt.Fprintf(tw, "%d\t", glueFail)
		}
		// The name is left-aligned after the last cell; tabwriter right-aligns
		// only cells that end in a tab.
		fmt.Fprintf(tw, "\t%s\n", line(name))
	}
	for _, a := range r.Summary.ByArea {
		row(a.Prefix, a.Counts, partialBy[a.Prefix], a.GlueFail, a.Name)
	}
	row("total", r.Summary.Requirements, partialAll, r.Summary.GlueFail, "")
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
			p("  %-5s %s [%s] %s", line(strings.ToUpper(string(q.Status))), line(q.ID), line(q.Level), line(q.Title))
			if !agentLoop(q) {
				p(" (deterministic-first profile)")
			}
			if q.Glue != "" {
				p(" (glue: %s)", line(q.Glue))
			}
			p("\n")
			if len(q.Failures) == 0 {
				for _, l := range strings.Split(safetext.Text(secrets.Redact(q.Reason)), "\n") {
					p("        %s\n", l)
				}
				continue
			}
			groups := foldChecks(q.Failures)
			for i, c := range groups {
				if i == maxChecksListed {
					p("        … and %d more failing checks (see the JSON report)\n", len(groups)-i)
					break
				}
				p("        %s  %s\n", line(c.Where()), line(c.Step))
				for _, l := range strings.Split(safetext.Text(secrets.Redact(c.Message)), "\n") {
					p("          %s\n", l)
				}
				if also := c.sameIn(); also != "" {
					p("          (%s)\n", line(also))
				}
			}
		}
	}
	var partial []RequirementResult
	for _, q := range r.Requirements {
		if q.Status == Pass && q.Partial {
			partial = append(partial, q)
		}
	}
	if len(partial) > 0 {
		p("\nPartially verified (pass, but not every clause was checked):\n")
		for _, q := range partial {
			p("  %-7s not verified: %s\n", line(q.ID), line(q.Unverified))
		}
	}
	var unseen []RequirementResult
	for _, q := range r.Requirements {
		if q.Status == NotTested && q.Glue != "" {
			unseen = append(unseen, q)
		}
	}
	if len(unseen) > 0 {
		p("\nNot tested because of glue (decided by the adapter or conform's bridge, not the loop):\n")
		for _, q := range unseen {
			p("  %-7s %s\n", line(q.ID), line(q.Glue))
		}
	}
	if len(r.Observations) > 0 {
		p("\nObservations (recorded without judging; no verdict depends on them):\n")
		for _, o := range r.Observations {
			p("  %-5s %s  %s\n", line(o.Subject), line(o.Scenario), line(o.What))
		}
	}
	if st := r.Stability; st != nil {
		if !st.Varied {
			p("\nStability: every outcome was the same in all %d runs\n", st.Runs)
		} else {
			p("\nStability: outcomes VARIED over %d runs\n", st.Runs)
			for _, v := range st.Scenarios {
				p("  %s: %s\n", line(v.Scenario), line(v.Summary))
			}
			for _, f := range st.Requirements {
				p("  %s flake rate %.0f%%: %s\n", line(f.ID), 100*f.Rate, line(f.Summary))
			}
		}
	}

	p("\nCompliance: %s\n", line(r.Compliance.Label))
	return b.Flush()
}
