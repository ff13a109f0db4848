package mutation

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeConform writes a stand-in for the conform binary: a shell script
// that behaves as told and writes a JSON report where conform would.
func fakeConform(t *testing.T, body string) string {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "conform")
	script := "#!/bin/sh\nfor a in \"$@\"; do case $prev in --report-json) rep=$a;; esac; prev=$a; done\n" + body + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestRunMapsExitStatusToVerdict(t *testing.T) {
	report := `echo '{"requirements":[{"id":"TA-02","status":"fail"},{"id":"TA-01","status":"pass"},{"id":"HD-05","status":"error"}]}' > "$rep"`
	cases := []struct {
		name, body string
		want       Status
		failing    []string
		detail     string
	}{
		{"pass", "exit 0", Survived, nil, ""},
		{"fail", report + "; exit 1", Killed, []string{"HD-05", "TA-02"}, ""},
		// conform leaves a failing DF row out of its exit status.
		{"profile row fails", `echo '{"requirements":[{"id":"DF-02","status":"fail"}]}' > "$rep"; exit 0`, Killed, []string{"DF-02"}, ""},
		{"fail without a report", "exit 1", Killed, nil, ""},
		{"panic", "echo 'panic: runtime error: nil map' >&2; echo 'goroutine 7 [running]:' >&2; exit 2", Crashed, nil, "panic: runtime error: nil map"},
		{"usage", "echo 'bad tags' >&2; exit 2", HarnessError, nil, "bad tags"},
		{"initialize refused", "echo 'conform: the kernel could not be started and initialized: kernel error: boom' >&2; exit 2", Killed, nil, "could not be started"},
		{"initialize refused, with a report", `echo '{"requirements":[{"id":"TA-01","status":"error"}]}' > "$rep"; exit 2`, Killed, []string{"TA-01"}, ""},
		{"interrupted", "exit 3", HarnessError, nil, "exit status 3"},
		{"hang", "exec sleep 30", TimedOut, nil, "no verdict within"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := &judge{timeout: 500 * time.Millisecond, now: time.Now}
			v := j.run(context.Background(), fakeConform(t, c.body), "@TA-02")
			if v.status != c.want || !cmp.Equal(v.failing, c.failing) || !strings.Contains(v.detail, c.detail) {
				t.Errorf("got %s %v %q, want %s %v %q", v.status, v.failing, v.detail, c.want, c.failing, c.detail)
			}
		})
	}
}

// A failure that does not come back on a second run is not a kill.
func TestKillMustReproduce(t *testing.T) {
	j := &judge{timeout: 5 * time.Second, now: time.Now}
	marker := filepath.Join(t.TempDir(), "ran")
	flaky := fakeConform(t, `if [ -e `+marker+` ]; then exit 0; fi; touch `+marker+`
echo '{"requirements":[{"id":"HD-05","status":"fail"}]}' > "$rep"; exit 1`)
	var r Result
	v := j.reproduced(context.Background(), flaky, j.run(context.Background(), flaky, ""), &r)
	if v.status != Survived || !cmp.Equal(r.Unreproduced, []string{"HD-05"}) {
		t.Errorf("flaky failure: %s, unreproduced %v", v.status, r.Unreproduced)
	}
	steady := fakeConform(t, `echo '{"requirements":[{"id":"TA-02","status":"fail"}]}' > "$rep"; exit 1`)
	r = Result{}
	v = j.reproduced(context.Background(), steady, j.run(context.Background(), steady, ""), &r)
	if v.status != Killed || len(r.Unreproduced) != 0 {
		t.Errorf("steady failure: %s, unreproduced %v", v.status, r.Unreproduced)
	}
}

// A run stopped at a flaky first failure may hide the real one behind it:
// when the first failure does not come back, the scope runs again to the
// end, and the steady failure found there is the kill.
func TestFlakyFirstFailureDoesNotHideAKill(t *testing.T) {
	j := &judge{timeout: 5 * time.Second, now: time.Now}
	marker := filepath.Join(t.TempDir(), "ran")
	// With --fail-fast it stops at a flaky HD-05 (once); run to the end
	// (no --fail-fast) it also fails TA-02, every time; asked for HD-05
	// alone it passes.
	bin := fakeConform(t, `case "$*" in *@HD-05*) exit 0;; esac
case "$*" in *--fail-fast*) if [ ! -e `+marker+` ]; then touch `+marker+`; echo '{"requirements":[{"id":"HD-05","status":"fail"}]}' > "$rep"; exit 1; fi;; esac
echo '{"requirements":[{"id":"TA-02","status":"fail"}]}' > "$rep"; exit 1`)
	var r Result
	v := j.scope(context.Background(), exe{bin: bin, dir: filepath.Dir(bin)}, "", &r)
	if v.status != Killed || !cmp.Equal(v.failing, []string{"TA-02"}) || !cmp.Equal(r.Unreproduced, []string{"HD-05"}) {
		t.Errorf("got %s %v, unreproduced %v; want killed by TA-02 with HD-05 unreproduced", v.status, v.failing, r.Unreproduced)
	}
}

// build lays the mutated file over the real one; the real file is never
// written, and a mutant that does not compile is told apart from a build
// that could not run.
func TestBuildUsesAnOverlay(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root := t.TempDir()
	src := "package main\n\nimport \"os\"\n\nfunc main() {\n\tif len(os.Args) > 1 {\n\t\tos.Exit(1)\n\t}\n}\n"
	files := map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": src}
	for f, s := range files {
		if err := os.WriteFile(filepath.Join(root, f), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ms, err := Enumerate(".", "main.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	j := &judge{root: root, goTool: goTool, target: ".", now: time.Now}
	// Two mutants of `if len(os.Args) > 1`: one per kind of edit.
	for i, m := range []Mutant{ms[0], ms[len(ms)-1]} {
		bin, err := j.build(context.Background(), t.TempDir(), &m, []byte(src))
		if err != nil {
			t.Fatalf("mutant %d (%s): %v", i, m.Describe(), err)
		}
		if _, err := os.Stat(bin); err != nil {
			t.Errorf("%s: no binary: %v", m.Key, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(root, "main.go")); string(b) != src {
		t.Error("the real file was written")
	}
	bad := Mutant{File: "main.go", start: 0, end: len("package main"), text: "package"}
	if _, err := j.build(context.Background(), t.TempDir(), &bad, []byte(src)); !errors.As(err, new(*buildError)) {
		t.Errorf("a mutant that does not compile: err = %v, want a build error", err)
	}
}

// A mutant that eats memory is stopped before it takes the machine's.
func TestRunStopsAMemoryHog(t *testing.T) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc")
	}
	var hog atomic.Bool
	// Any process is over a limit of 1 byte.
	cmd := exec.Command("sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	stop := watchMemory(cmd.Process, 1, &hog)
	_ = cmd.Wait()
	stop()
	if !hog.Load() {
		t.Error("a process over the limit was not stopped")
	}
}

// A run that times out runs once more with twice the time, and the second
// run's verdict counts: a slow but correct run on a loaded machine is not
// a kill. Only a run that times out twice is killed by timeout.
func TestTimedOutRunRunsAgainWithTwiceTheTime(t *testing.T) {
	j := &judge{timeout: time.Second, now: time.Now}
	marker := filepath.Join(t.TempDir(), "ran")
	// The first run hangs; the second passes.
	slow := fakeConform(t, `if [ -e `+marker+` ]; then exit 0; fi; touch `+marker+`; exec sleep 30`)
	var r Result
	if v := j.scope(context.Background(), exe{bin: slow, dir: filepath.Dir(slow), cpu: &r.CPUMillis}, "", &r); v.status != Survived {
		t.Errorf("timed out once, then passing: %s %q, want survived", v.status, v.detail)
	}
	marker2 := filepath.Join(t.TempDir(), "ran")
	killedLate := fakeConform(t, `if [ -e `+marker2+` ]; then echo '{"requirements":[{"id":"TA-02","status":"fail"}]}' > "$rep"; exit 1; fi; touch `+marker2+`; exec sleep 30`)
	r = Result{}
	if v := j.scope(context.Background(), exe{bin: killedLate, dir: filepath.Dir(killedLate)}, "", &r); v.status != Killed || !cmp.Equal(v.failing, []string{"TA-02"}) {
		t.Errorf("timed out, then failing TA-02: %s %v, want killed by TA-02", v.status, v.failing)
	}
	hang := fakeConform(t, `exec sleep 30`)
	start := time.Now()
	v := j.scope(context.Background(), exe{bin: hang, dir: filepath.Dir(hang)}, "", &r)
	if v.status != TimedOut || !strings.Contains(v.detail, "when run again") {
		t.Errorf("a hang: %s %q, want timeout after a second run", v.status, v.detail)
	}
	if took := time.Since(start); took < 3*j.timeout {
		t.Errorf("a hang was given up after %s, before its second run's doubled timeout (%s in all)", took, 3*j.timeout)
	}
	if j.tally.reruns != 3 || j.tally.rerunsEnded != 2 {
		t.Errorf("tally: %d timed-out runs run again, %d ended; want 3 and 2", j.tally.reruns, j.tally.rerunsEnded)
	}
}

// A run that uses more CPU than its budget is stopped and counts as killed
// by timeout at once: a busy machine lengthens a run's wall time, not its
// CPU time, so it is not run again. A run that waits costs no CPU and is
// not stopped by the budget.
func TestRunOverItsCPUBudgetIsStoppedOnce(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	j := &judge{timeout: time.Minute, now: time.Now}
	spinner := fakeConform(t, `while :; do :; done`)
	start := time.Now()
	v := j.runExe(context.Background(), exe{bin: spinner, dir: filepath.Dir(spinner), cpuLimit: 300 * time.Millisecond}, "", true)
	if v.status != TimedOut || !v.spun || !strings.Contains(v.detail, "used more than 300ms of CPU") {
		t.Errorf("a spinning run: %s %q, want stopped for its CPU", v.status, v.detail)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the spinning run was stopped after %s, not by its CPU budget", took)
	}
	if j.tally.reruns != 0 || j.tally.runs != 1 {
		t.Errorf("a run over its CPU budget ran %d times (%d reruns), want once", j.tally.runs, j.tally.reruns)
	}
	waiter := fakeConform(t, `sleep 1; echo '{"requirements":[{"id":"TA-01","status":"pass"}]}' > "$rep"`)
	if v := j.runExe(context.Background(), exe{bin: waiter, dir: filepath.Dir(waiter), cpuLimit: 300 * time.Millisecond}, "", true); v.status != Survived {
		t.Errorf("a run that waits past its CPU budget in wall time: %s %q, want survived", v.status, v.detail)
	}
}

func TestCPUBudget(t *testing.T) {
	if got := cpuBudget(time.Second); got != minCPUBudget {
		t.Errorf("cpuBudget(1s) = %s, want the floor %s", got, minCPUBudget)
	}
	if got := cpuBudget(10 * time.Second); got != 50*time.Second {
		t.Errorf("cpuBudget(10s) = %s, want 5x", got)
	}
	p := filepath.Join(t.TempDir(), "stat")
	// A command name with spaces and a parenthesis, as /proc allows.
	if err := os.WriteFile(p, []byte("42 (a b) c) R 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 1 0 100\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := procCPU(p); got != 3*time.Second {
		t.Errorf("procCPU = %s, want 3s (250+50 ticks)", got)
	}
}
