package runner

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/report"
)

func viewRows() []report.ScenarioResult {
	return []report.ScenarioResult{
		{File: "bounds.feature", Line: 29, Name: "max_turns 2 ends the loop after one final-answer turn, and a name long enough to need cutting", Status: report.Pass},
		{File: "hooks.feature", Line: 7, Name: "a failing observer changes nothing", Status: report.Fail},
		{File: "wire.feature", Line: 3, Name: "名前 が 長い シナリオ は 二 列 を 取る 文字 で 切られる こと を 確かめる", Status: report.Error},
	}
}

// On a terminal every line fits its width (a wrapped line cannot be
// redrawn), a single status line is redrawn under the scenario lines, and
// the end replaces it with the counts.
func TestLiveViewOnATerminal(t *testing.T) {
	for _, width := range []int{40, 80} {
		var buf bytes.Buffer
		began := time.Unix(0, 0)
		v := newLiveView(&buf, Options{ProgressTTY: true, ProgressWidth: width}, 4, began)
		v.now = func() time.Time { return began.Add(3 * time.Second) }
		for _, r := range viewRows() {
			v.finished(r)
		}
		v.done(false)
		out := buf.String()
		// Every redraw starts by erasing the line; what is left on screen
		// is the text after the last erase of each physical line. The
		// counts at the end stay on screen whole: wrapping them is harmless.
		segs := strings.Split(out, "\r\x1b[2K")
		for _, seg := range segs[:len(segs)-1] {
			for _, line := range strings.Split(seg, "\n") {
				if w := visibleWidth(line); w > width {
					t.Errorf("width %d: a line of %d columns: %q", width, w, line)
				}
			}
		}
		if strings.Contains(out, "\x1b[3") || strings.Contains(out, "\x1b[1;") {
			t.Errorf("colour without ProgressColor:\n%q", out)
		}
		if n := strings.Count(out, "\n"); n != 4 {
			t.Errorf("width %d: %d lines, want 3 scenario lines and the counts:\n%s", width, n, out)
		}
		if !strings.Contains(out, "[3/4] ~1s left  1 pass, 1 fail, 1 error") && width == 80 {
			t.Errorf("no status line with the counts and the time left:\n%q", out)
		}
		if !strings.HasSuffix(out, "\r\x1b[2K3 of 4 scenarios in 3s: 1 pass, 1 fail, 1 error\n") {
			t.Errorf("the end does not replace the status line with the counts:\n%q", out)
		}
		if !strings.Contains(out, "…") {
			t.Errorf("width %d: no line was cut:\n%s", width, out)
		}
	}
}

// Colour marks pass, fail and error when asked for (the CLI asks on a
// terminal without NO_COLOR), and never in a log.
func TestLiveViewColour(t *testing.T) {
	var buf bytes.Buffer
	v := newLiveView(&buf, Options{ProgressTTY: true, ProgressWidth: 80, ProgressColor: true}, 3, time.Now())
	for _, r := range viewRows() {
		v.finished(r)
	}
	out := buf.String()
	for _, want := range []string{"\x1b[32mPASS\x1b[0m", "\x1b[1;31mFAIL\x1b[0m", "\x1b[1;35mERROR\x1b[0m"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%q", want, out)
		}
	}
	buf.Reset()
	v = newLiveView(&buf, Options{ProgressColor: true}, 3, time.Now())
	for _, r := range viewRows() {
		v.finished(r)
	}
	v.done(false)
	out = buf.String()
	if strings.Contains(out, "\x1b") {
		t.Errorf("escape sequences in a log:\n%q", out)
	}
	if !strings.Contains(out, "[1/3] PASS         bounds.feature:29  max_turns 2 ends the loop after one final-answer turn, and a name long enough to need cutting\n") {
		t.Errorf("a log line is not whole and numbered:\n%s", out)
	}
	if !strings.HasSuffix(out, "scenarios in 0s: 1 pass, 1 fail, 1 error\n") {
		t.Errorf("a log does not end with the counts:\n%s", out)
	}
}

func TestCutCountsColumns(t *testing.T) {
	for _, c := range []struct {
		s    string
		cols int
		want string
	}{
		{"abcdef", 6, "abcdef"},
		{"abcdef", 5, "abcd…"},
		{"日本語", 6, "日本語"},
		{"日本語", 5, "日本…"},
		{"日本語", 4, "日…"},
		{"e\u0301e\u0301e\u0301", 3, "e\u0301e\u0301e\u0301"},
		{"abc", 0, ""},
	} {
		if got := cut(c.s, c.cols); got != c.want {
			t.Errorf("cut(%q, %d) = %q, want %q", c.s, c.cols, got, c.want)
		}
	}
}
