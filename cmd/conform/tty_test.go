package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestColourFollowsNoColor(t *testing.T) {
	env := func(kv map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
	}
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{"TERM": "xterm-256color"}, true},
		{map[string]string{"TERM": "xterm", "NO_COLOR": "1"}, false},
		{map[string]string{"TERM": "xterm", "NO_COLOR": ""}, true}, // no-color.org: set and not empty
		{map[string]string{"TERM": "dumb"}, false},
	} {
		if got := colorWanted(env(c.env)); got != c.want {
			t.Errorf("colorWanted(%v) = %v, want %v", c.env, got, c.want)
		}
	}
}

// The end of a run says where every report went; progress to a file (not a
// terminal) has no escape sequences and ends with the counts.
func TestRunEndsWithTheReportsWritten(t *testing.T) {
	dir := t.TempDir()
	js, md := filepath.Join(dir, "r.json"), filepath.Join(dir, "sub", "r.md")
	code, out, errOut := conform(t, "run", "--tags", "@TA-01", "--report-json", js, "--markdown", md)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	want := "Reports written:\n  --report-json  " + js + "\n  --markdown     " + md + "\n"
	if !strings.HasSuffix(out, want) {
		t.Errorf("stdout does not end with\n%s\ngot:\n%s", want, out)
	}
	if strings.Contains(errOut, "\x1b") {
		t.Errorf("escape sequences in progress that is not a terminal:\n%q", errOut)
	}
	if !strings.Contains(errOut, "scenarios in") || !strings.Contains(errOut, "parallel job") {
		t.Errorf("progress does not say the jobs chosen and the counts at the end:\n%s", errOut)
	}
}
