package conformtest

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/adapter"
)

// TestOneRequirement is what TestRunFilterSelectsOneRequirement runs in a
// child `go test -run 'TestOneRequirement/TA-02$'`.
func TestOneRequirement(t *testing.T) {
	if os.Getenv("CONFORMTEST_CHILD") != "1" {
		t.Skip("run by TestRunFilterSelectsOneRequirement")
	}
	r := TestKernel(t, adapter.InProcess{Name: "reference", Serve: serve}, Options{Jobs: 2, TimeoutMultiplier: 2})
	t.Logf("ran %d scenarios", len(r.Scenarios))
}

// As with nettest.TestConn, each requirement is a subtest, and a -run
// pattern naming one runs its scenarios only.
func TestRunFilterSelectsOneRequirement(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child test binary")
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run", "TestOneRequirement/TA-02$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "CONFORMTEST_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	s := string(out)
	if !strings.Contains(s, "--- PASS: TestOneRequirement/TA-02 ") {
		t.Errorf("no passing subtest TestOneRequirement/TA-02:\n%s", s)
	}
	if strings.Contains(s, "TestOneRequirement/TA-01") {
		t.Errorf("a subtest the pattern does not name was reported:\n%s", s)
	}
	m := regexp.MustCompile(`ran (\d+) scenarios`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("the child did not say how many scenarios ran:\n%s", s)
	}
	if n, _ := strconv.Atoi(m[1]); n == 0 || n > 20 {
		t.Errorf("%d scenarios ran, want TA-02's few, not the whole suite", n)
	}
}

func TestTagsOfRunFilter(t *testing.T) {
	f := flag.Lookup("test.run")
	old := f.Value.String()
	t.Cleanup(func() { f.Value.Set(old) })
	for _, c := range []struct{ pattern, name, want string }{
		{"TestKernel/TA-02$", "TestKernel", "@TA-02"},
		{"TestKernel/^TA-0[12]$", "TestKernel", "@TA-01,@TA-02"},
		{"TestKernel", "TestKernel", ""},
		{"TestKernel/", "TestKernel", ""},
		{"TestOuter/inner/TA-10$", "TestOuter/inner", "@TA-10"},
		{"TestKernel/(TA|ER)-01$", "TestKernel", "@TA-01,@ER-01"},
		{"TestKernel/NOPE", "TestKernel", ""},
	} {
		f.Value.Set(c.pattern)
		if got := tagsOfRunFilter(c.name); got != c.want {
			t.Errorf("-run %q in %s: tags %q, want %q", c.pattern, c.name, got, c.want)
		}
	}
}

// TestDeadlineChild is what TestTestTimeoutStopsTheKernels runs with a
// short -timeout: a kernel that never answers initialize, with a longer
// InitTimeout than the test has.
func TestDeadlineChild(t *testing.T) {
	if os.Getenv("CONFORMTEST_CHILD") != "1" {
		t.Skip("run by TestTestTimeoutStopsTheKernels")
	}
	TestKernel(t, adapter.Subprocess{Argv: []string{"sleep", os.Getenv("CONFORMTEST_MARKER")}}, Options{InitTimeout: time.Minute})
}

// deadlineMarker is the child's kernel's sleep argument, unique to this
// test process: another make test beside it runs the same test, and its
// kernels are not this run's leftovers (seen with two side by side).
func deadlineMarker() string { return fmt.Sprintf("617.%d", os.Getpid()) }

// The run is under the test's context and stops before go test's -timeout
// kills the binary, so its kernels are stopped, not left running.
func TestTestTimeoutStopsTheKernels(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child test binary")
	}
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep")
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run", "TestDeadlineChild$", "-test.v", "-test.count=1", "-test.timeout=20s")
	cmd.Env = append(os.Environ(), "CONFORMTEST_CHILD=1", "CONFORMTEST_MARKER="+deadlineMarker())
	out, _ := cmd.CombinedOutput()
	s := string(out)
	if strings.Contains(s, "test timed out") || !strings.Contains(s, "--- FAIL: TestDeadlineChild") || !strings.Contains(s, "before the test's -timeout") {
		t.Errorf("the child did not fail on its own before its -timeout:\n%s", s)
	}
	if pids := sleepers(deadlineMarker()); len(pids) > 0 {
		t.Errorf("kernels left running after the test: pids %v", pids)
	}
}

// sleepers are the processes running "sleep marker".
func sleepers(marker string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), "sleep\x00"+marker) {
			out = append(out, e.Name())
		}
	}
	return out
}
