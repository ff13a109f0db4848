package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/spec/wire"
)

// boxKernel writes a shell kernel: it runs spawn, answers initialize, and
// runs onRun when session/run arrives. Being a script, it can leave the
// process tree the ways real kernels do (setsid, a double fork, a
// background job holding stdout) without any help from the test binary.
func boxKernel(t *testing.T, spawn, onRun string) string {
	t.Helper()
	init, err := json.Marshal(hostileInit("box"))
	if err != nil || bytes.ContainsRune(init, '\'') {
		t.Fatalf("initialize result %s: %v", init, err)
	}
	script := fmt.Sprintf(`#!/bin/sh
%s
IFS= read -r line || exit 0
id=$(printf '%%s\n' "$line" | sed -n 's/^.*"id":\([0-9][0-9]*\).*$/\1/p')
printf '{"jsonrpc":"2.0","id":%%s,"result":%%s}\n' "$id" '%s'
while IFS= read -r line; do
	case "$line" in
	*'"method":"%s"'*) %s ;;
	esac
done
`, spawn, init, wire.MethodSessionRun, onRun)
	path := filepath.Join(t.TempDir(), "kernel.sh")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

var boxSeq atomic.Int64

// boxMark is a sleep duration no other process uses, found again in
// /proc/*/cmdline.
func boxMark() string {
	return fmt.Sprintf("300.%06d%03d", os.Getpid()%1_000_000, boxSeq.Add(1))
}

// runBox runs testdata/hostile's one scenario against the script, failing
// the test rather than hanging past limit.
func runBox(t *testing.T, l adapter.Launcher, timeout, limit time.Duration) (*report.ScenarioResult, time.Duration) {
	t.Helper()
	opt := Options{
		Launcher: l, FS: os.DirFS(filepath.Join("testdata", "hostile")), Root: ".",
		Concurrency: 1, ScenarioTimeout: timeout,
	}
	type result struct {
		r   *report.Report
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		r, err := Run(context.Background(), opt)
		done <- result{r, err}
	}()
	var res result
	select {
	case res = <-done:
	case <-time.After(limit):
		t.Fatalf("Run did not return within %v", limit)
	}
	took := time.Since(start)
	if res.err != nil {
		t.Fatalf("Run: %v", res.err)
	}
	if len(res.r.Scenarios) != 1 {
		t.Fatalf("%d scenario verdicts, want 1", len(res.r.Scenarios))
	}
	return &res.r.Scenarios[0], took
}

// expectNoSleep waits until no process runs with one of marks in its command
// line and none of the noted pids is left a zombie child of this process
// (the runner closes a faulted kernel in the background).
func expectNoSleep(t *testing.T, marks []string, pidfile string) {
	t.Helper()
	var pids []int
	if b, err := os.ReadFile(pidfile); err == nil {
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				pids = append(pids, n)
			}
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var left []string
		for _, m := range marks {
			if ps := cmdlinePIDs(m); len(ps) > 0 {
				left = append(left, fmt.Sprintf("sleep %s (pids %v)", m, ps))
			}
		}
		for _, p := range pids {
			if zombieChild(p) {
				left = append(left, fmt.Sprintf("pid %d not reaped", p))
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("after the run: %s", strings.Join(left, "; "))
			for _, m := range marks {
				for _, p := range cmdlinePIDs(m) {
					_ = syscall.Kill(p, syscall.SIGKILL)
				}
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func cmdlinePIDs(s string) []int {
	var out []int
	names, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err == nil && bytes.Contains(b, []byte(s)) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(n)))
			if pid != os.Getpid() {
				out = append(out, pid)
			}
		}
	}
	return out
}

func zombieChild(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	f := bytes.Fields(b[i+1:])
	return len(f) > 1 && string(f[0]) == "Z" && string(f[1]) == strconv.Itoa(os.Getpid())
}

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs subprocess kernels")
	}
	if runtime.GOOS != "linux" {
		t.Skip("counts processes in /proc")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("needs " + tool)
		}
	}
}

// TestHostileBoxEscapedProcesses: a kernel starts sleeps that leave its
// process group (setsid as its child, setsid behind a double fork) or its
// tree (a double fork), then crashes on session/run. The scenario is an
// error, and after the run no sleep survives and none is left unreaped.
func TestHostileBoxEscapedProcesses(t *testing.T) {
	needTools(t, "sh", "setsid", "sleep", "sed")
	pidfile := filepath.Join(t.TempDir(), "pids")
	marks := []string{boxMark(), boxMark(), boxMark()}
	spawn := fmt.Sprintf(`P='%s'
setsid sleep %s </dev/null >/dev/null 2>&1 &
echo $! >>"$P"
( setsid sleep %s </dev/null >/dev/null 2>&1 & echo $! >>"$P" )
( sleep %s </dev/null >/dev/null 2>&1 & echo $! >>"$P" )`, pidfile, marks[0], marks[1], marks[2])
	k := boxKernel(t, spawn, `echo "box: leaving" >&2; exit 3`)
	s, _ := runBox(t, adapter.Subprocess{Argv: []string{"/bin/sh", k}}, 20*time.Second, 90*time.Second)
	if s.Status != report.Error || !strings.Contains(s.Failure, "kernel exited during session/run") {
		t.Errorf("status %s, failure %q; want error, kernel exited during session/run", s.Status, firstLine(s.Failure))
	}
	expectNoSleep(t, marks, pidfile)
}

// TestHostileBoxExitedHoldingOutput: the kernel exits with status 7 on
// session/run, leaving a background sleep that holds its stdout. The verdict
// says so at once instead of calling the kernel hung after the timeout.
func TestHostileBoxExitedHoldingOutput(t *testing.T) {
	needTools(t, "sh", "sleep", "sed")
	const timeout = 30 * time.Second
	pidfile := filepath.Join(t.TempDir(), "pids")
	mark := boxMark()
	k := boxKernel(t, "", fmt.Sprintf(`sleep %s & echo $! >>'%s'; exit 7`, mark, pidfile))
	s, took := runBox(t, adapter.Subprocess{Argv: []string{"/bin/sh", k}}, timeout, 3*timeout)
	want := "kernel exited (status 7); a process it started kept its output open"
	if s.Status != report.Error || !strings.Contains(s.Failure, want) {
		t.Errorf("status %s, failure %q; want error saying %q", s.Status, firstLine(s.Failure), want)
	}
	if took >= timeout/3 {
		t.Errorf("the verdict took %v with a %v scenario timeout: the exit was not noticed", took, timeout)
	}
	t.Logf("verdict after %v: %s", took.Round(time.Millisecond), firstLine(s.Failure))
	expectNoSleep(t, []string{mark}, pidfile)
}

// TestHostileBoxEnvironment: a kernel that prints its environment into its
// stderr (which the report quotes) shows the minimal environment and what
// the launcher passed, never a secret of conform's own environment.
func TestHostileBoxEnvironment(t *testing.T) {
	needTools(t, "sh", "env", "sed")
	secret := fmt.Sprintf("hunter2-%d", time.Now().UnixNano())
	t.Setenv("CONFORM_BOX_SECRET_TOKEN", secret)
	t.Setenv("CONFORM_BOX_NOT_PASSED", "plain")
	k := boxKernel(t, "", `env >&2; exit 3`)
	l := adapter.Subprocess{Argv: []string{"/bin/sh", k}, Env: []string{"CONFORM_BOX_PASSED=passed-value"}}
	s, _ := runBox(t, l, 20*time.Second, 90*time.Second)
	// On failure, name the variables the kernel saw, never their values:
	// this test's own environment may hold real secrets.
	if s.Status != report.Error {
		t.Fatalf("status %s, want error; variables: %v", s.Status, envNames(s.Failure))
	}
	for _, w := range []string{"CONFORM_BOX_PASSED=passed-value", "PATH=", adapter.MarkerEnv + "="} {
		if !strings.Contains(s.Failure, w) {
			t.Errorf("the kernel's environment (in its stderr) lacks %s; it has %v", w, envNames(s.Failure))
		}
	}
	if strings.Contains(s.Failure, secret) {
		t.Errorf("the kernel's environment holds the secret; it has %v", envNames(s.Failure))
	}
	if strings.Contains(s.Failure, "CONFORM_BOX_NOT_PASSED") {
		t.Errorf("the kernel got CONFORM_BOX_NOT_PASSED; it has %v", envNames(s.Failure))
	}
}

// envNames lists the NAME of every NAME=VALUE line of text.
func envNames(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if name, _, ok := strings.Cut(strings.TrimSpace(line), "="); ok && name != "" && !strings.ContainsAny(name, " :") {
			out = append(out, name)
		}
	}
	return out
}
