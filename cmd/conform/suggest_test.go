package main

import "testing"

// A misspelt flag is answered with the flags it may have meant, as a
// misspelt command is; one that resembles none points to --help.
func TestMisspeltFlagsGetSuggestions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--junit-xml", "x.xml"}, "unknown flag: --junit-xml: did you mean --junit?"},
		{[]string{"run", "--tag", "@TA-01"}, "did you mean --tags?"},
		{[]string{"run", "--markdwon", "x.md"}, "did you mean --markdown?"},
		{[]string{"run", "--Quiet"}, "did you mean --quiet?"},
		{[]string{"list", "--areas", "TA"}, "did you mean --area?"},
		{[]string{"run", "--zzz"}, "unknown flag: --zzz (conform run --help lists the flags)"},
		{[]string{"run", "-Z"}, "(conform run --help lists the flags)"},
	} {
		wantUsage(t, c.args, c.want)
	}
}

// A selection that matches nothing points to conform list, and to the tag
// a misspelt one may have meant.
func TestEmptySelectionPointsToList(t *testing.T) {
	kernel, marker := markerKernel(t)
	wantUsage(t, []string{"run", "--kernel", kernel, "--tags", "@TA-1", "-q"}, `selects no scenario; did you mean @TA-01?`, "conform list shows every requirement")
	wantUsage(t, []string{"run", "--kernel", kernel, "--tags", "@ta-02", "-q"}, `did you mean @TA-02 (tags are case-sensitive)?`)
	wantUsage(t, []string{"run", "--kernel", kernel, "--tags", "@TA-01&&~@TA-01", "-q"}, "conform list shows every requirement")
	wantNotLaunched(t, marker)
}

func TestNearFlagsOrder(t *testing.T) {
	cmd := newRunCmd()
	for name, want := range map[string]string{"junit-xml": "junit", "report-jsn": "report-json", "slowly": "slow", "j0bs": "jobs"} {
		got := nearFlags(cmd, name)
		if len(got) == 0 || got[0] != want {
			t.Errorf("nearFlags(%q) = %v, want %s first", name, got, want)
		}
	}
	if got := nearFlags(cmd, "qwertyuiop"); len(got) != 0 {
		t.Errorf("nearFlags(qwertyuiop) = %v, want none", got)
	}
}
