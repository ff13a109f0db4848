package adapter

import (
	"context"
	"fmt"
	"io"
	"sync"
)

// Endpoint is a started kernel.
type Endpoint struct {
	// Out is what the kernel writes (its stdout); In is its stdin.
	Out io.Reader
	In  io.Writer

	stderr *Tail
	close  func() error
	exited chan struct{}

	mu      sync.Mutex
	exitErr error
	// status is how a subprocess kernel ended ("status 3"), set before
	// exited is closed; held is set when a process it started kept its
	// stdout open after it exited.
	status string
	held   bool
}

// Launcher starts one kernel instance.
type Launcher interface {
	Launch(ctx context.Context) (*Endpoint, error)
	// Describe names the kernel for reports ("subprocess: python3 k.py").
	Describe() string
}

// Close stops the kernel and releases everything it held. It is safe to call
// more than once.
func (e *Endpoint) Close() error { return e.close() }

// Exited is closed when the kernel has stopped.
func (e *Endpoint) Exited() <-chan struct{} { return e.exited }

// ExitErr is the kernel's exit error once Exited is closed.
func (e *Endpoint) ExitErr() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.exitErr
}

// OutputHeld is, once the kernel's output has ended, "kernel exited (status
// N); a process it started kept its output open" when the kernel process
// exited while something it started still held its stdout (the harness then
// ends the connection at once rather than wait for a scenario timeout), and
// "" otherwise.
func (e *Endpoint) OutputHeld() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.held {
		return ""
	}
	return fmt.Sprintf("kernel exited (%s); a process it started kept its output open", e.status)
}

func (e *Endpoint) setHeld() {
	e.mu.Lock()
	e.held = true
	e.mu.Unlock()
}

// StderrTail is the end of what the kernel wrote to stderr.
func (e *Endpoint) StderrTail() string {
	if e.stderr == nil {
		return ""
	}
	return e.stderr.String()
}

func (e *Endpoint) setExit(err error) {
	e.mu.Lock()
	e.exitErr = err
	e.mu.Unlock()
	close(e.exited)
}

// Tail keeps the last N bytes written to it.
type Tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// NewTail keeps at most max bytes.
func NewTail(max int) *Tail { return &Tail{max: max} }

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
