package pluginconform

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/internal/safetext"
)

// WriteUnreached writes what the run could not check, as prominently as
// report.WriteText writes failures: every requirement left not_tested or
// unverifiable, and every not-reached check of a requirement that passed.
// An unexercised check must never read as a pass.
func WriteUnreached(w io.Writer, r *report.Report) error {
	b := bufio.NewWriter(w)
	line := func(s string) string { return safetext.Line(s) }
	var n int
	for _, q := range r.Requirements {
		switch {
		case q.Status == report.NotTested || q.Status == report.Unverifiable:
			if n == 0 {
				fmt.Fprintf(b, "\nNot checked (no verdict; these are not passes):\n")
			}
			n++
			fmt.Fprintf(b, "  %-12s %s [%s] %s\n", strings.ToUpper(string(q.Status)), line(q.ID), line(q.Level), line(q.Title))
			fmt.Fprintf(b, "        %s\n", line(q.Reason))
		case q.Status == report.Pass && len(q.NotReached) > 0:
			if n == 0 {
				fmt.Fprintf(b, "\nNot checked (no verdict; these are not passes):\n")
			}
			n++
			fmt.Fprintf(b, "  %-12s %s [%s] %s: %d %s not reached\n", "PARTIAL", line(q.ID), line(q.Level), line(q.Title), len(q.NotReached), plural(len(q.NotReached), "check", "checks"))
			for i, c := range q.NotReached {
				if i == 5 {
					fmt.Fprintf(b, "        … and %d more (see the JSON report)\n", len(q.NotReached)-i)
					break
				}
				fmt.Fprintf(b, "        %s  %s: %s\n", line(c.Where()), line(c.Step), line(c.Message))
			}
		}
	}
	return b.Flush()
}
