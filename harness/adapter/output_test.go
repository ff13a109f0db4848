package adapter

import (
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestBoxHeldOutput: the kernel writes its last lines and exits with status
// 7 while a child it started keeps stdout open. The reader gets every line
// the kernel wrote, then EOF at once, and OutputHeld says what happened.
func TestBoxHeldOutput(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep")
	}
	script := `printf 'first\n'; sleep 300 & printf 'last, without newline'; exit 7`
	ep, err := Subprocess{Argv: []string{"/bin/sh", "-c", script}}.Launch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(ep.Out)
		got <- string(b)
	}()
	select {
	case out := <-got:
		if out != "first\nlast, without newline" {
			t.Errorf("read %q", out)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the output did not end although the kernel exited")
	}
	want := "kernel exited (status 7); a process it started kept its output open"
	if h := ep.OutputHeld(); h != want {
		t.Errorf("OutputHeld = %q, want %q", h, want)
	}
}

// TestBoxOutputEndsNormally: a kernel that exits with nothing holding its
// output ends with a plain EOF and no "kept its output open".
func TestBoxOutputEndsNormally(t *testing.T) {
	ep, err := Subprocess{Argv: []string{"/bin/sh", "-c", `printf 'bye\n'; exit 3`}}.Launch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	b, err := io.ReadAll(ep.Out)
	if err != nil || string(b) != "bye\n" {
		t.Errorf("read %q, %v", b, err)
	}
	<-ep.Exited()
	if h := ep.OutputHeld(); h != "" {
		t.Errorf("OutputHeld = %q for a kernel whose output ended with it", h)
	}
	if err := ep.ExitErr(); err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("ExitErr = %v", err)
	}
}

// TestCleanExitWithStderrHeld: a kernel that exits 0 while something keeps
// its stderr open past WaitDelay (a child here; on a busy machine, the copy
// of stderr lagging) exited cleanly: ExitErr is nil, not os/exec's
// ErrWaitDelay, which TA-18 read as a failed exit (issue 25).
func TestCleanExitWithStderrHeld(t *testing.T) {
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep")
	}
	ep, err := Subprocess{Argv: []string{"/bin/sh", "-c", `sleep 300 >/dev/null & exit 0`}}.Launch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	select {
	case <-ep.Exited():
	case <-time.After(30 * time.Second):
		t.Fatal("the kernel's exit was not noticed")
	}
	if err := ep.ExitErr(); err != nil {
		t.Errorf("ExitErr = %v, want nil: the kernel exited 0", err)
	}
}
