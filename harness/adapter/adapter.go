package adapter

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// Endpoint is a started kernel.
type Endpoint struct {
	// Out is what the kernel writes (its stdout); In is its stdin.
	Out io.Reader
	In  io.Writer

	stderr       *Tail
	close        func() error
	exited       chan struct{}
	starved      func() time.Duration // nil: not measured
	starvedKnown func() time.Duration // starved without a scan; nil: not measured

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

// Starved is how long the kernel, and the harness that reads it, have
// waited for a CPU while they could run (on Linux: the run-queue waits of
// the kernel's processes, each as of the last call that saw it alive, so a
// caller samples while the kernel starts, plus the harness's own; 0 for
// an in-process kernel and where that is not measured). Time a busy
// machine kept the kernel from running, or the harness from reading its
// answer, is not the kernel's: the initialize timeout does not count it (a Python kernel's start at load 55 was
// charged 10 s after 23 s of its own waits were credited, the harness's
// not).
func (e *Endpoint) Starved() time.Duration {
	if e.starved == nil {
		// In-process, the harness's waits are mostly its other work's,
		// not this kernel's: a kernel that sleeps is charged in full.
		return 0
	}
	return e.starved() + selfStarved()
}

// CPUWait is how long the kernel and the harness have waited for a CPU
// while they could run, summed (each as in Starved, the kernel's processes
// as of their last sample; 0 for an in-process kernel, as in Starved).
// It only grows, and is cheap enough to read at each message: the
// difference between two readings is time a busy machine, not the kernel,
// took out of the interval, which upper time bounds do not count (retry
// ceilings, the harness's watchdogs). Summed rather than the larger of
// the two, because a request is late by both the kernel's wait to send it
// and the harness's wait to read it; a kernel that sleeps adds to neither.
func (e *Endpoint) CPUWait() time.Duration {
	if e.starvedKnown == nil {
		// In-process, as in Starved: the harness's waits are mostly its
		// other sessions', and reading every thread's schedstat at each
		// message of a busy test process is not free.
		return 0
	}
	return e.starvedKnown() + selfStarved()
}

// KernelCPUWait is CPUWait without the harness's own wait: the kernel's
// processes alone (0 in-process). The harness's longest-waiting thread
// queues for a CPU serving every scenario of the run, whether or not this
// kernel's messages were late; the retry ceilings measure the harness's
// own lateness by its watcher's ticks instead (steps.starveRecord).
func (e *Endpoint) KernelCPUWait() time.Duration {
	if e.starvedKnown == nil {
		return 0
	}
	return e.starvedKnown()
}

// WatchdogWait is CPUWait for a kernel run as a process; in-process, the
// harness process's own wait for a CPU (its longest-waiting thread's),
// which the retry ceilings do not take because it is mostly its other
// sessions'. A watchdog may: crediting it too much only delays the verdict
// on a session that never ends (driver.AfterCharged caps it), while
// crediting nothing let a busy machine cut sessions that would have ended
// on their own (conform fuzz with several workers at load 60).
func (e *Endpoint) WatchdogWait() time.Duration {
	if e.starvedKnown == nil {
		return selfStarved()
	}
	return e.CPUWait()
}

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

// StderrTail is the end of what the kernel wrote to stderr (at most
// stderrReported bytes: it goes into failure texts).
func (e *Endpoint) StderrTail() string {
	if e.stderr == nil {
		return ""
	}
	s := e.stderr.String()
	if len(s) > stderrReported {
		s = s[len(s)-stderrReported:]
	}
	return s
}

// stderrReported bounds the stderr a failure text quotes.
const stderrReported = 8 << 10

// StderrMark is how many bytes the kernel has written to stderr so far; -1
// when the kernel has no stderr (it runs in-process).
func (e *Endpoint) StderrMark() int64 {
	if e.stderr == nil {
		return -1
	}
	return e.stderr.Written()
}

// StderrSince is what the kernel wrote to stderr after mark, as far as the
// kept window reaches, and how many of those bytes the window no longer
// holds (a repro bundle says so rather than pass a tail for the whole).
func (e *Endpoint) StderrSince(mark int64) (string, int64) {
	if e.stderr == nil || mark < 0 {
		return "", 0
	}
	return e.stderr.Since(mark)
}

func (e *Endpoint) setExit(err error) {
	e.mu.Lock()
	e.exitErr = err
	e.mu.Unlock()
	close(e.exited)
}

// Tail keeps the last N bytes written to it, and counts them all.
type Tail struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	written int64
}

// NewTail keeps at most max bytes.
func NewTail(max int) *Tail { return &Tail{max: max} }

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.written += int64(len(p))
	t.buf = append(t.buf, p...)
	// Trimmed only once it holds twice the window, so a chatty kernel
	// costs one copy per window written, not one per write.
	if len(t.buf) > 2*t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf[max(0, len(t.buf)-t.max):])
}

// Written is how many bytes were ever written.
func (t *Tail) Written() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.written
}

// Since returns what was written after the first mark bytes, as far as the
// window reaches, and how many of those bytes it no longer holds.
func (t *Tail) Since(mark int64) (string, int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	held := t.buf[max(0, len(t.buf)-t.max):]
	first := t.written - int64(len(held)) // offset of held[0]
	if mark >= t.written {
		return "", 0
	}
	if mark < first {
		return string(held), first - mark
	}
	return string(held[mark-first:]), 0
}
