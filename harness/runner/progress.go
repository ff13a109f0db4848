package runner

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/width"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/internal/safetext"
)

// liveView is a run's progress as a person watches it, in the manner of
// `go test -v` and pytest: a line per finished scenario and, on a terminal,
// one status line under them, redrawn in place, with the counts so far and
// an estimate of the time left. On a terminal every line is cut to its
// width (a wrapped line cannot be redrawn: it would leave half-erased
// copies behind) and statuses are coloured unless NO_COLOR is set; in a log
// (not a terminal) lines are whole, numbered and plain.
type liveView struct {
	w     io.Writer
	tty   bool
	width int  // columns; 0: not cut
	color bool // ANSI colours
	total int
	began time.Time
	now   func() time.Time

	n      int
	counts map[report.Status]int
}

func newLiveView(w io.Writer, opt Options, total int, began time.Time) *liveView {
	v := &liveView{w: w, tty: opt.ProgressTTY, total: total, began: began, now: time.Now, counts: map[report.Status]int{}}
	if v.tty {
		v.width = opt.ProgressWidth
		if v.width <= 0 {
			v.width = 80
		}
		v.color = opt.ProgressColor
	}
	return v
}

// statusWords are the statuses as the live view prints them, padded so
// that the scenario references line up.
var statusWords = map[report.Status]string{
	report.Pass: "PASS", report.Fail: "FAIL", report.Error: "ERROR", report.Skipped: "SKIP",
	report.Unverifiable: "NOT VERIFIABLE", report.NotReached: "NOT REACHED", report.NotRun: "NOT RUN",
}

// statusColors are SGR parameters: green for pass, red for fail, magenta
// for error (the run, not the kernel's behaviour, is in doubt), yellow for
// the rest.
var statusColors = map[report.Status]string{
	report.Pass: "32", report.Fail: "1;31", report.Error: "1;35",
}

func (v *liveView) word(s report.Status) string {
	w := statusWords[s]
	if w == "" {
		w = strings.ToUpper(string(s))
	}
	pad := strings.Repeat(" ", max(0, 5-len(w)))
	if !v.color {
		return w + pad
	}
	c := statusColors[s]
	if c == "" {
		c = "33"
	}
	return "\x1b[" + c + "m" + w + "\x1b[0m" + pad
}

// finished prints one finished scenario. Scenario names come from feature
// files, which may be anyone's, so they are escaped like kernel text.
func (v *liveView) finished(row report.ScenarioResult) {
	v.n++
	v.counts[row.Status]++
	where := fmt.Sprintf("%s:%d  %s", safetext.Line(row.File), row.Line, safetext.Line(row.Name))
	if !v.tty {
		fmt.Fprintf(v.w, "[%d/%d] %-12s %s\n", v.n, max(v.total, v.n), strings.ToUpper(string(row.Status)), where)
		return
	}
	word := v.word(row.Status)
	line := word + " " + cut(where, v.width-visibleWidth(word)-1)
	// One write: \r and erase-line replace the status line with the
	// scenario's line, and the status line is drawn again under it.
	out := "\r\x1b[2K" + line + "\n"
	if v.n < v.total {
		out += cut(v.status(), v.width-1)
	}
	io.WriteString(v.w, out)
}

// status is the line redrawn under the scenarios: how far the run is, the
// counts so far, and the time left at the pace so far.
func (v *liveView) status() string {
	s := fmt.Sprintf("[%d/%d]", v.n, v.total)
	if v.n > 0 && v.total > v.n {
		per := v.now().Sub(v.began) / time.Duration(v.n)
		s += fmt.Sprintf(" ~%s left", (per * time.Duration(v.total-v.n)).Round(time.Second))
	}
	return s + "  " + v.tally()
}

// tally is the counts of the statuses seen, in report order, coloured.
func (v *liveView) tally() string {
	var parts []string
	for _, st := range report.ScenarioStatuses() {
		n := v.counts[st]
		if n == 0 && st != report.Pass && st != report.Fail && st != report.Error {
			continue
		}
		p := fmt.Sprintf("%d %s", n, strings.ToLower(statusWords[st]))
		if v.color && n > 0 && statusColors[st] != "" && st != report.Pass {
			p = "\x1b[" + statusColors[st] + "m" + p + "\x1b[0m"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// done ends the view: the status line is replaced by the final counts.
func (v *liveView) done(interrupted bool) {
	took := v.now().Sub(v.began).Round(100 * time.Millisecond)
	end := fmt.Sprintf("%d of %d scenarios in %v: %s", v.n, v.total, took, v.tally())
	if interrupted {
		end += " (interrupted)"
	}
	if v.tty {
		io.WriteString(v.w, "\r\x1b[2K"+end+"\n")
		return
	}
	fmt.Fprintln(v.w, end)
}

// cut shortens s to at most cols terminal columns, ending in "…" when it
// had to. Wide (East Asian) characters take two columns, combining marks
// none.
func cut(s string, cols int) string {
	if cols <= 0 {
		return ""
	}
	if visibleWidth(s) <= cols {
		return s
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		w := runeWidth(r)
		if used+w > cols-1 {
			break
		}
		b.WriteRune(r)
		used += w
	}
	return b.String() + "…"
}

// visibleWidth counts the columns s takes, skipping ANSI colour sequences.
func visibleWidth(s string) int {
	n, esc := 0, false
	for _, r := range s {
		switch {
		case esc:
			esc = r != 'm'
		case r == '\x1b':
			esc = true
		default:
			n += runeWidth(r)
		}
	}
	return n
}

func runeWidth(r rune) int {
	switch {
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || r == '\u200b':
		return 0
	case r < 0x1100:
		return 1
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}
