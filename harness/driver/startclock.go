package driver

import (
	"context"
	"errors"
	"sync"
	"time"
)

// errInitTimeout ends an initialize the kernel did not answer in time.
var errInitTimeout = errors.New("initialize timeout")

// startCap bounds, in initialize timeouts of wall time, how long a kernel
// kept from running by a busy machine may take to start: waiting for a CPU
// is not the kernel's fault, but a start-up must end some time.
const startCap = 30

// startClock is the initialize timeout on a clock that does not run while
// the kernel waits for a CPU (starved, adapter.Endpoint.Starved): start-up is
// measured from when the kernel could run, so a machine busy with other
// work, or with other kernels starting, does not turn a slow start into an
// `error` verdict of our making. A kernel that sleeps or blocks is charged
// every second of it.
type startClock struct {
	starved  func() time.Duration // adapter.Endpoint.Starved
	timeout  time.Duration
	began    time.Time
	starved0 time.Duration
	cancel   context.CancelCauseFunc

	mu       sync.Mutex
	timer    *time.Timer
	credited time.Duration
}

// newStartClock starts the clock at began, when the kernel was launched:
// an in-process kernel starts running before Launch returns, and a loaded
// machine can take a while to get back to the caller.
func newStartClock(parent context.Context, starved func() time.Duration, timeout time.Duration, began time.Time) (context.Context, *startClock) {
	ctx, cancel := context.WithCancelCause(parent)
	c := &startClock{starved: starved, timeout: timeout, began: began, starved0: starved(), cancel: cancel}
	c.mu.Lock()
	c.timer = time.AfterFunc(max(0, timeout-time.Since(began)), c.expire)
	c.mu.Unlock()
	// The kernel's short-lived processes (a shim's, a launcher's) are only
	// counted while they exist: sample while the kernel starts.
	go func() {
		t := time.NewTicker(startSample)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				starved()
			}
		}
	}()
	return ctx, c
}

// startSample is how often a starting kernel's waits for a CPU are read.
const startSample = 100 * time.Millisecond

func (c *startClock) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	wall := time.Since(c.began)
	c.credited = max(0, c.starved()-c.starved0)
	if left := c.timeout + c.credited - wall; left >= time.Millisecond && wall < startCap*c.timeout {
		c.timer.Reset(min(left, startCap*c.timeout-wall))
		return
	}
	c.cancel(errInitTimeout)
}

// expired reports whether the clock, not the caller, ended ctx.
func (c *startClock) expired(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), errInitTimeout)
}

// note says what the clock did not count, if anything worth saying.
func (c *startClock) note() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.credited < 10*time.Millisecond {
		return ""
	}
	return " (not counting " + c.credited.Round(time.Millisecond).String() + " in which it waited for a CPU)"
}

// charged is the time so far the kernel is charged for: the wall time
// since the launch less what it spent waiting for a CPU.
func (c *startClock) charged() time.Duration {
	return max(0, time.Since(c.began)-max(0, c.starved()-c.starved0))
}

func (c *startClock) stop() {
	c.mu.Lock()
	c.timer.Stop()
	c.mu.Unlock()
	c.cancel(context.Canceled)
}
