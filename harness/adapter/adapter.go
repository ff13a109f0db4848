package adapter

import (
	"context"
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
