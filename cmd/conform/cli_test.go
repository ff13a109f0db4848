package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/spec/wire"
)

// conform runs the command line in-process.
func conform(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = execute(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func wantUsage(t *testing.T, args []string, want ...string) {
	t.Helper()
	code, out, errOut := conform(t, args...)
	if code != exitUsage {
		t.Errorf("conform %q: exit %d, want %d\nstderr: %s", args, code, exitUsage, errOut)
		return
	}
	for _, w := range want {
		if !strings.Contains(errOut, w) {
			t.Errorf("conform %q: stderr does not say %q:\n%s%s", args, w, errOut, out)
		}
	}
}

// markerKernel is a kernel command that leaves a file behind when started,
// so a test can tell whether a kernel was launched.
func markerKernel(t *testing.T) (kernel, marker string) {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	marker = filepath.Join(t.TempDir(), "launched")
	return "sh -c 'touch " + marker + "'", marker
}

func wantNotLaunched(t *testing.T, marker string) {
	t.Helper()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a kernel was launched before the usage error")
	}
}

// An empty --kernel (an unset variable in a CI script) used to check the
// embedded reference kernel and exit 0.
func TestEmptyKernelIsUsageError(t *testing.T) {
	for _, k := range []string{"", "  "} {
		wantUsage(t, []string{"run", "--kernel", k, "--tags", "@TA-01", "-q"}, "--kernel is empty")
		wantUsage(t, []string{"fuzz", "--kernel", k, "--cases", "1", "--real-time=false"}, "--kernel is empty")
	}
}

// A tag expression that does not parse used to reach godog (which panics on
// an empty tag); one that selects nothing ran nothing and exited 0.
func TestTagExpressionIsCheckedBeforeLaunch(t *testing.T) {
	kernel, marker := markerKernel(t)
	for expr, want := range map[string]string{
		"@TA-01,,@TA-02":    `--tags "@TA-01,,@TA-02" does not parse: an empty alternative`,
		"@TA-01 and @TA-02": `--tags "@TA-01 and @TA-02" does not parse: "TA-01 and TA-02" is not one tag`,
		"@TA-8":             `--tags "@TA-8" selects no scenario`,
		"@TA-01&&~@TA-01":   `selects no scenario`,
	} {
		wantUsage(t, []string{"run", "--kernel", kernel, "--tags", expr, "-q"}, want)
	}
	wantNotLaunched(t, marker)
}

// -j 0 and a zero or negative --timeout used to be replaced silently.
func TestNonPositiveJobsAndTimeoutsAreUsageErrors(t *testing.T) {
	kernel, marker := markerKernel(t)
	for _, c := range []struct{ flag, value, want string }{
		{"-j", "0", "-j/--jobs must be at least 1, not 0"},
		{"-j", "-3", "-j/--jobs must be at least 1, not -3"},
		{"--timeout", "0", "--timeout must be positive"},
		{"--timeout", "-1s", "--timeout must be positive"},
		{"--init-timeout", "0", "--init-timeout must be positive"},
	} {
		wantUsage(t, []string{"run", "--kernel", kernel, "--tags", "@TA-01", "-q", c.flag, c.value}, c.want)
	}
	wantUsage(t, []string{"fuzz", "--kernel", kernel, "--cases", "0"}, "--cases must be at least 1")
	wantUsage(t, []string{"fuzz", "--kernel", kernel, "--timeout", "0"}, "--timeout must be positive")
	wantUsage(t, []string{"fuzz", "--kernel", kernel, "--workers", "-1"}, "--workers must be 0 or more")
	wantNotLaunched(t, marker)
}

// A kernel that never answers initialize is told apart from a scenario
// hang, and the message names the flag that sets the limit.
func TestInitTimeoutIsItsOwnFlag(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep")
	}
	code, out, errOut := conform(t, "run", "--kernel", "sleep 60", "--init-timeout", "200ms", "--tags", "@TA-01", "-q")
	if code == exitOK {
		t.Fatalf("a kernel that never answers initialize passed:\n%s", out)
	}
	if want := "no answer to initialize within 200ms, --init-timeout"; !strings.Contains(out+errOut, want) {
		t.Errorf("output does not say %q:\n%s\n%s", want, errOut, out)
	}
}

func TestRequireAcceptsAnyCase(t *testing.T) {
	for _, level := range []string{"MUST", "Should", "aLL"} {
		if code, out, errOut := conform(t, "run", "--require", level, "--tags", "@TA-01", "-q"); code != exitOK {
			t.Errorf("--require %s: exit %d\n%s%s", level, code, errOut, out)
		}
	}
	wantUsage(t, []string{"run", "--require", "most"}, `--require must be must, should or all, not "most"`)
}

func TestListUnknownAreaIsUsageError(t *testing.T) {
	wantUsage(t, []string{"list", "--area", "XX"}, `--area "XX" is not an area; the areas are TA, HD, PA, SA, ER, DF`)
	if code, out, _ := conform(t, "list", "--area", "hd"); code != exitOK || !strings.Contains(out, "HD-01") {
		t.Errorf("list --area hd: exit %d\n%s", code, out)
	}
}

// --features named "." in its errors, whatever path was given.
func TestFeaturesErrorsNameThePathGiven(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "one.feature")
	if err := os.WriteFile(file, []byte("Feature: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, []string{"run", "--features", file, "-q"}, "--features "+file+" is a file")
	wantUsage(t, []string{"run", "--features", empty, "-q"}, "--features "+empty+" holds no .feature files")
	wantUsage(t, []string{"run", "--features", filepath.Join(dir, "missing"), "-q"}, "--features "+filepath.Join(dir, "missing")+": no such folder")
}

// A three-digit @TA-999 beside a valid ID used to pass unnoticed.
func TestUnknownRequirementIDInFeatureFile(t *testing.T) {
	kernel, marker := markerKernel(t)
	dir := t.TempDir()
	feature := "Feature: x\n\n  @TA-01 @TA-999 @must\n  Scenario: typo\n    Given x\n"
	if err := os.WriteFile(filepath.Join(dir, "x.feature"), []byte(feature), 0o644); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, []string{"run", "--kernel", kernel, "--features", dir, "-q"}, "--features "+dir, "x.feature:4: unknown requirement ID TA-999")
	wantNotLaunched(t, marker)
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, out, errOut := conform(t, args...)
		if code != exitOK {
			t.Errorf("conform %q: exit %d: %s", args, code, errOut)
		}
		for _, want := range []string{"conform " + runner.Version, "protocol " + wire.Version, "catalog version 1, ", "\ncommit ", "\nsuite sha256:"} {
			if !strings.Contains(out, want) {
				t.Errorf("conform %q does not print %q:\n%s", args, want, out)
			}
		}
	}
}

// A report path that cannot be written used to be found only after the
// whole run, throwing the run away.
func TestReportPathsAreCheckedBeforeLaunch(t *testing.T) {
	kernel, marker := markerKernel(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	same := filepath.Join(dir, "r.out")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--junit", filepath.Join(file, "j.xml")}, "--junit " + filepath.Join(file, "j.xml") + ": its folder cannot be created"},
		{[]string{"--markdown", dir}, "--markdown " + dir + ": a folder, not a file"},
		{[]string{"--report-json", same, "--junit", same}, "--report-json and --junit both name " + same},
	} {
		wantUsage(t, append([]string{"run", "--kernel", kernel, "-q"}, c.args...), c.want)
	}
	wantNotLaunched(t, marker)
	if _, err := os.Stat(same); err == nil {
		t.Errorf("the writability check left %s behind", same)
	}
}

func TestReportFolderIsCreated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", "sub", "r.json")
	if code, _, errOut := conform(t, "run", "--tags", "@TA-01", "-q", "--report-json", path); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Errorf("report not written: %v", err)
	}
}

// A report that fails to write after the run used to stop the others and
// the text report.
func TestFailedReportKeepsTheOthers(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full to make a write fail after the run")
	}
	dir := t.TempDir()
	junit, md := filepath.Join(dir, "j.xml"), filepath.Join(dir, "m.md")
	code, out, errOut := conform(t, "run", "--tags", "@TA-01", "-q", "--report-json", "/dev/full", "--junit", junit, "--markdown", md)
	if code != exitUsage || !strings.Contains(errOut, "--report-json /dev/full: ") {
		t.Errorf("exit %d, want %d naming --report-json /dev/full:\n%s", code, exitUsage, errOut)
	}
	for _, p := range []string{junit, md} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", p, err)
		}
	}
	if !strings.Contains(out, "conform-refkernel") {
		t.Errorf("no text report on stdout:\n%s", out)
	}
}
