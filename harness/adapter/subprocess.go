package adapter

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Subprocess launches a kernel adapter command.
type Subprocess struct {
	Argv []string
	Dir  string
	// Env is NAME=VALUE entries given to the kernel on top of the minimal
	// environment (MinimalEnv of conform's own); an entry replaces a
	// passed variable of the same name.
	Env []string
	// StderrKept is how much of the kernel's stderr is kept (default 8
	// KiB); a run that writes repro bundles keeps more, so that a bundle
	// holds everything a scenario's kernel wrote.
	StderrKept int
}

// ParseCommand splits a --kernel value on blanks, honouring single and double
// quotes, so "python3 'my kernel.py' --flag" works without a shell.
func ParseCommand(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	var quote rune
	inArg := false
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inArg = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(r)
			inArg = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("kernel command %q: unterminated %c quote", s, quote)
	}
	if inArg {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, errors.New("kernel command is empty")
	}
	return args, nil
}

// Describe implements Launcher.
func (s Subprocess) Describe() string { return "subprocess: " + strings.Join(s.Argv, " ") }

// Launch implements Launcher.
func (s Subprocess) Launch(ctx context.Context) (*Endpoint, error) {
	cmd := exec.Command(s.Argv[0], s.Argv[1:]...)
	cmd.Dir = s.Dir
	b := newBox()
	cmd.Env = mergeEnv(MinimalEnv(os.Environ()), append(slices.Clone(s.Env), b.marker)...)
	// Own process group: Close kills everything the adapter started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// Our own pipe rather than StdoutPipe: Wait must not close stdout
	// under the reader, or the kernel's last lines before exiting are lost.
	stdout, stdoutW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = stdoutW
	tail := NewTail(max(s.StderrKept, stderrReported))
	cmd.Stderr = tail
	// A crashed kernel's own children may keep stderr open; do not let
	// that delay noticing the exit.
	cmd.WaitDelay = 200 * time.Millisecond
	enableSubreaper()
	if err := cmd.Start(); err != nil {
		stdout.Close()
		stdoutW.Close()
		return nil, fmt.Errorf("start kernel %q: %w", strings.Join(s.Argv, " "), err)
	}
	stdoutW.Close()
	b.started(cmd.Process.Pid)
	ep := &Endpoint{In: input{stdin}, stderr: tail, exited: make(chan struct{}), starved: b.starved, starvedKnown: b.starvedKnown}
	out := newOutReader(stdout, ep)
	ep.Out = out
	go func() {
		err := cmd.Wait()
		if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success() {
			// The kernel exited 0; only its stderr was still open or not
			// yet drained WaitDelay later (on a busy machine the copy
			// lags). That is no exit status of the kernel's: TA-18 read it
			// as a failed exit at load 25 (issue 25). A child that holds
			// stderr is ended by Close's sweep of the process group; unlike
			// held stdout (OutputHeld), held stderr is not reported.
			err = nil
		}
		ep.mu.Lock()
		ep.status = exitStatus(cmd.ProcessState)
		ep.mu.Unlock()
		out.kernelExited()
		ep.setExit(err)
	}()
	var once sync.Once
	var closeErr error
	ep.close = func() error {
		once.Do(func() {
			b.record()
			stdin.Close()
			// A well-behaved kernel exits on EOF; give it a moment, then
			// take the whole group down, and the kernel itself should it
			// have left its group.
			select {
			case <-ep.exited:
			case <-time.After(500 * time.Millisecond):
			}
			b.killGroup()
			_ = cmd.Process.Kill()
			<-ep.exited
			closeErr = b.sweep(5 * time.Second)
			b.release()
			stdout.Close()
		})
		return closeErr
	}
	return ep, nil
}
