//go:build linux

package adapter

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// escapeScript starts, before it says "ready", one sleep of each kind that
// leaves the kernel's process group, each with a unique duration as its
// marker in /proc/*/cmdline, and notes their pids in pidfile:
//   - a: setsid, still the kernel's child;
//   - b: setsid behind a double fork, adopted at once;
//   - c: a double fork in the kernel's group;
//   - d: setsid with an emptied environment (no MarkerEnv), the kernel's child.
//
// It then waits for stdin to end, or exits at once when exitFirst is set.
func escapeScript(t *testing.T, pidfile string, marks map[string]string, exitFirst bool) string {
	t.Helper()
	setsid, err1 := exec.LookPath("setsid")
	sleep, err2 := exec.LookPath("sleep")
	if err1 != nil || err2 != nil {
		t.Skip("needs setsid and sleep")
	}
	q := func(s string) string { return "'" + s + "'" }
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\nP=%s\n", q(pidfile))
	fmt.Fprintf(&b, "%s %s %s </dev/null >/dev/null 2>&1 &\necho a $! >>\"$P\"\n", setsid, sleep, marks["a"])
	fmt.Fprintf(&b, "( %s %s %s </dev/null >/dev/null 2>&1 & echo b $! >>\"$P\" )\n", setsid, sleep, marks["b"])
	fmt.Fprintf(&b, "( %s %s </dev/null >/dev/null 2>&1 & echo c $! >>\"$P\" )\n", sleep, marks["c"])
	if !exitFirst {
		fmt.Fprintf(&b, "env -i %s %s %s </dev/null >/dev/null 2>&1 &\necho d $! >>\"$P\"\n", setsid, sleep, marks["d"])
	}
	b.WriteString("echo ready\n")
	if !exitFirst {
		b.WriteString("exec cat >/dev/null\n")
	}
	path := filepath.Join(t.TempDir(), "kernel.sh")
	if err := os.WriteFile(path, []byte(b.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

var markSeq atomic.Int64

// sleepMarks are sleep durations no other process on the machine uses.
func sleepMarks(kinds ...string) map[string]string {
	m := map[string]string{}
	for _, k := range kinds {
		m[k] = fmt.Sprintf("300.%06d%03d", os.Getpid()%1_000_000, markSeq.Add(1))
	}
	return m
}

// launchEscaper starts the script and waits until every sleep is noted.
func launchEscaper(t *testing.T, exitFirst bool) (*Endpoint, map[string]string, string) {
	t.Helper()
	marks := sleepMarks("a", "b", "c", "d")
	if exitFirst {
		delete(marks, "d")
	}
	pidfile := filepath.Join(t.TempDir(), "pids")
	ep, err := Subprocess{Argv: []string{"/bin/sh", escapeScript(t, pidfile, marks, exitFirst)}}.Launch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(ep.Out).ReadString('\n')
	if line != "ready\n" {
		ep.Close()
		t.Fatalf("kernel said %q (%v); stderr: %s", line, err, ep.StderrTail())
	}
	// The script may say ready before a forked sleep has exec'd.
	deadline := time.Now().Add(10 * time.Second)
	for kind, mark := range marks {
		for len(withCmdline(mark)) != 1 {
			if time.Now().After(deadline) {
				ep.Close()
				t.Fatalf("sleep %s (%s) is not running before teardown", kind, mark)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return ep, marks, pidfile
}

// withCmdline lists the processes whose command line holds s.
func withCmdline(s string) []int {
	var out []int
	names, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil || !bytes.Contains(b, []byte(s)) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(n)))
		if pid != os.Getpid() {
			out = append(out, pid)
		}
	}
	return out
}

// expectNone checks that no sleep of marks runs and that every noted pid is
// gone from /proc altogether: a zombie left for conform to reap fails too.
func expectNone(t *testing.T, marks map[string]string, pidfile string) {
	t.Helper()
	for kind, mark := range marks {
		if pids := withCmdline(mark); len(pids) > 0 {
			t.Errorf("sleep %s (%s) survived the teardown: pids %v", kind, mark, pids)
			for _, p := range pids {
				_ = syscall.Kill(p, syscall.SIGKILL)
			}
		}
	}
	b, _ := os.ReadFile(pidfile)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		kind, n, _ := strings.Cut(line, " ")
		pid, err := strconv.Atoi(n)
		if err != nil {
			t.Fatalf("pidfile line %q", line)
		}
		if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if p, err := parseStat(pid, st); err == nil && p.ppid == os.Getpid() {
				t.Errorf("sleep %s (pid %d) is still conform's child in state %c: not reaped", kind, pid, p.state)
			}
		}
	}
}

// TestBoxKillsEscapedProcesses: children that left the kernel's process
// group (setsid, double fork, an emptied environment) do not survive Close,
// and none is left a zombie.
func TestBoxKillsEscapedProcesses(t *testing.T) {
	ep, marks, pidfile := launchEscaper(t, false)
	if err := ep.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	expectNone(t, marks, pidfile)
}

// TestBoxKernelExitedFirst: the kernel exits on its own, leaving orphans
// that conform adopted; Close still finds them by the kernel's marker.
func TestBoxKernelExitedFirst(t *testing.T) {
	ep, marks, pidfile := launchEscaper(t, true)
	select {
	case <-ep.Exited():
	case <-time.After(30 * time.Second):
		t.Fatal("the kernel did not exit")
	}
	if err := ep.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	expectNone(t, marks, pidfile)
}

// TestBoxKeepsOtherKernelsProcesses: with two kernels running at once,
// closing one kills only what that one started.
func TestBoxKeepsOtherKernelsProcesses(t *testing.T) {
	a, amarks, apids := launchEscaper(t, false)
	b, bmarks, bpids := launchEscaper(t, false)
	t0 := time.Now()
	if err := a.Close(); err != nil {
		t.Errorf("Close a: %v", err)
	}
	t.Logf("close a %v", time.Since(t0))
	expectNone(t, amarks, apids)
	for kind, mark := range bmarks {
		if len(withCmdline(mark)) != 1 {
			t.Errorf("closing kernel a ended kernel b's sleep %s", kind)
		}
	}
	select {
	case <-b.Exited():
		t.Errorf("closing kernel a ended kernel b")
	default:
	}
	t1 := time.Now()
	if err := b.Close(); err != nil {
		t.Errorf("Close b: %v", err)
	}
	t.Logf("close b %v", time.Since(t1))
	expectNone(t, bmarks, bpids)
}
