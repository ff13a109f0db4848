package mutation

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeMain is conform's main package as far as a judging server sees it:
// execute runs a command line. The last argument says what the run does;
// every run writes a report that names the mutant switched on.
const fakeMain = `package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {}

func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	rep := ""
	for i, a := range args {
		if a == "--report-json" {
			rep = args[i+1]
		}
	}
	status := "pass"
	if os.Getenv("CONFORM_MUTANT") == "3" {
		status = "fail"
	}
	os.WriteFile(rep, []byte(fmt.Sprintf("{\"requirements\":[{\"id\":\"TA-02\",\"status\":%q}]}", status)), 0o644)
	switch args[len(args)-1] {
	case "leak":
		go func() { select {} }()
	case "timer":
		time.AfterFunc(300*time.Millisecond, func() { panic("left by an earlier run") })
	case "slow":
		time.Sleep(2 * time.Second)
	case "panic":
		go func() { panic("kernel goroutine") }()
		time.Sleep(time.Second)
	case "hang":
		time.Sleep(time.Hour)
	case "spin":
		for {
		}
	case "usage":
		fmt.Fprintln(stderr, "conform: bad flag")
		return 2
	}
	if status == "fail" {
		return 1
	}
	return 0
}
`

// buildFakeServer builds fakeMain with the server file a schema build adds.
func buildFakeServer(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module fake\n\ngo 1.22\n")
	write(t, filepath.Join(dir, "main.go"), fakeMain)
	write(t, filepath.Join(dir, serverFile), serverSource)
	bin := filepath.Join(dir, "conform")
	cmd := exec.Command(goTool, "build", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// A judging server runs command line after command line in one process,
// with the mutant of each switched on, and maps each to the verdict a
// process of its own would have had. A server whose run left goroutines,
// timed out, spun past its CPU budget or died is never handed another
// run; one whose run ended clean is.
func TestJudgingServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a small program")
	}
	bin := buildFakeServer(t)
	j := &judge{now: time.Now, servers: &servers{max: 4}}
	defer j.servers.close()
	dir := t.TempDir()
	run := func(mutant int, what string, limit, cpu time.Duration) verdict {
		t.Helper()
		x := exe{bin: bin, dir: dir, serve: true, mutant: mutant, cpuLimit: cpu}
		return j.runOnce(context.Background(), x, what, true, limit)
	}
	idle := func() int {
		j.servers.mu.Lock()
		defer j.servers.mu.Unlock()
		return len(j.servers.idle)
	}

	if v := run(1, "ok", time.Minute, 0); v.status != Survived {
		t.Errorf("mutant 1: %s %q, want survived", v.status, v.detail)
	}
	if idle() != 1 {
		t.Fatalf("%d idle servers after a clean run, want 1", idle())
	}
	first := j.servers.idle[0]
	if v := run(3, "ok", time.Minute, 0); v.status != Killed || len(v.failing) != 1 || v.failing[0] != "TA-02" {
		t.Errorf("mutant 3 on the same server: %s %v, want killed by TA-02 (the switch set per run)", v.status, v.failing)
	}
	if idle() != 1 || j.servers.idle[0] != first {
		t.Error("the server of a clean run was not handed the next run")
	}
	if v := run(1, "usage", time.Minute, 0); v.status != HarnessError || !strings.Contains(v.detail, "exit status 2: conform: bad flag") {
		t.Errorf("a usage error: %s %q", v.status, v.detail)
	}

	if v := run(1, "leak", time.Minute, 0); v.status != Survived {
		t.Errorf("a run that leaves a goroutine: %s %q, want its own verdict", v.status, v.detail)
	}
	if idle() != 0 {
		t.Error("a server whose run left a goroutine was kept for the next run")
	}
	if v := run(1, "panic", time.Minute, 0); v.status != Crashed || !strings.Contains(v.detail, "kernel goroutine") {
		t.Errorf("a panic: %s %q, want crashed naming it", v.status, v.detail)
	}
	start := time.Now()
	if v := run(1, "hang", time.Second, 0); v.status != TimedOut {
		t.Errorf("a hang: %s %q, want timeout", v.status, v.detail)
	}
	if v := run(1, "spin", time.Minute, 300*time.Millisecond); v.status != TimedOut || !v.spun {
		t.Errorf("a spin: %s %q, want stopped for its CPU", v.status, v.detail)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the hang and the spin took %s to judge", took)
	}
	if idle() != 0 {
		t.Errorf("%d servers kept after a panic, a hang and a spin", idle())
	}
	if v := run(1, "ok", time.Minute, 0); v.status != Survived {
		t.Errorf("after them, a fresh server: %s %q", v.status, v.detail)
	}
	if idle() != 1 {
		t.Fatalf("%d idle servers after a clean run, want 1", idle())
	}
	// A timer left by one run (no goroutine until it fires) panics during
	// the next: that run is judged again on a fresh server.
	if v := run(1, "timer", time.Minute, 0); v.status != Survived {
		t.Errorf("a run that leaves a timer: %s %q, want its own verdict", v.status, v.detail)
	}
	if v := run(3, "slow", time.Minute, 0); v.status != Killed {
		t.Errorf("a run during which an earlier run's timer panicked: %s %q, want its own verdict (killed) from a fresh server", v.status, v.detail)
	}
	// One that dies idle, between runs, is never handed the next run.
	if v := run(1, "timer", time.Minute, 0); v.status != Survived {
		t.Errorf("a run that leaves a timer: %s %q", v.status, v.detail)
	}
	time.Sleep(time.Second) // the timer fires while the server is idle (either way the next verdict is the same)
	if v := run(3, "ok", time.Minute, 0); v.status != Killed {
		t.Errorf("the run after a server died idle: %s %q, want its own verdict (killed)", v.status, v.detail)
	}
	j.servers.recycle = 1 // every server holds more than a byte
	if v := run(1, "ok", time.Minute, 0); v.status != Survived {
		t.Errorf("a run on a server past its memory: %s %q, want its own verdict", v.status, v.detail)
	}
	if idle() != 0 {
		t.Error("a server past the memory it may hold was handed another run")
	}
	if _, err := os.Stat(filepath.Join(dir, "report.json")); err != nil {
		t.Error(err)
	}
}
