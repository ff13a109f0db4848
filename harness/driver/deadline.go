package driver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// errScenarioTimeout ends a session that did not finish within its
// scenario timeout; it is a context.DeadlineExceeded, so explain calls it a
// hang.
var errScenarioTimeout = fmt.Errorf("scenario timeout: %w", context.DeadlineExceeded)

// deadline is a scenario timeout that charges the kernel only for the time
// conform spent waiting for its output. A kernel that writes faster than
// conform reads waits on conform (its pipe is full), so the time conform
// spends handling the kernel's messages, or is not scheduled at all on a
// loaded machine, is not the kernel's. The session ends once conform has
// waited the timeout in all; the flood limits bound how long it can be busy.
type deadline struct {
	k       *Kernel
	timeout time.Duration
	start   time.Time
	waited0 time.Duration

	mu       sync.Mutex
	credited time.Duration // wall time not charged to the kernel
	timer    *time.Timer
	cancel   context.CancelCauseFunc
}

func (k *Kernel) withDeadline(parent context.Context, timeout time.Duration) (context.Context, *deadline) {
	ctx, cancel := context.WithCancelCause(parent)
	d := &deadline{k: k, timeout: timeout, start: time.Now(), waited0: k.rpc.Waited(), cancel: cancel}
	d.mu.Lock()
	d.timer = time.AfterFunc(timeout, d.expire)
	d.mu.Unlock()
	return ctx, d
}

// expire runs when the kernel could have used up its time; if conform was
// busy part of it, it waits for the rest. A hang is no message at all for
// the timeout: a kernel that sent something within the last timeout is
// still working and gets more time, up to activeCapFactor timeouts in all,
// past which the session ends as still running, not as hung.
func (d *deadline) expire() {
	d.mu.Lock()
	defer d.mu.Unlock()
	charged := d.k.rpc.Waited() - d.waited0
	d.credited = max(0, time.Since(d.start)-charged)
	// A millisecond's tolerance keeps the timer from chasing the last few
	// microseconds.
	if left := d.timeout - charged; left >= time.Millisecond {
		d.timer.Reset(left)
		return
	}
	ran := time.Since(d.start)
	if last := d.k.lastArrival.Load(); last > 0 {
		idle := time.Since(time.Unix(0, last))
		if left := d.timeout - idle; left >= time.Millisecond {
			// The cap counts the time conform waited on the kernel, as the
			// timeout does: a message arrives when conform reads it, so a
			// backlog read slowly on a loaded machine looks like a kernel
			// still sending, and must not use up the kernel's time.
			if charged < activeCapFactor*d.timeout {
				d.timer.Reset(min(left, activeCapFactor*d.timeout-charged))
				return
			}
			d.cancel(&stillRunningError{ran: ran, idle: idle})
			return
		}
	}
	d.cancel(errScenarioTimeout)
}

// activeCapFactor bounds how long a kernel that keeps sending may run, in
// time conform waited on it: a session that never ends is a finding, not a
// reason to wait forever.
const activeCapFactor = 3

// stillRunningError ends a session whose kernel was still sending when the
// active cap passed.
type stillRunningError struct{ ran, idle time.Duration }

func (e *stillRunningError) Error() string {
	return fmt.Sprintf("session still running after %v (last message %v ago)", e.ran, e.idle)
}

// Unwrap makes it a scenario timeout for err and the callers that stop the
// kernel; explain tells it apart.
func (e *stillRunningError) Unwrap() error { return errScenarioTimeout }

// stop releases the timer and the context.
func (d *deadline) stop() {
	d.mu.Lock()
	d.timer.Stop()
	d.mu.Unlock()
	d.cancel(context.Canceled)
}

// err turns the error of a call made under ctx into errScenarioTimeout when
// the deadline ended it, with what was not counted. Once the deadline has
// passed, the kernel is being stopped, so whatever the call saw (the
// cancellation, or the connection closing) is the timeout's doing.
func (d *deadline) err(ctx context.Context, err error) error {
	if err == nil || !errors.Is(context.Cause(ctx), errScenarioTimeout) {
		return err
	}
	var sr *stillRunningError
	if errors.As(context.Cause(ctx), &sr) {
		return sr
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.credited < 10*time.Millisecond { // timer jitter, not conform's work
		return errScenarioTimeout
	}
	return &timeoutError{credited: d.credited}
}

// timeoutError is a scenario timeout that was extended by the time conform
// was not waiting for the kernel; its text says so.
type timeoutError struct{ credited time.Duration }

func (e *timeoutError) Error() string { return errScenarioTimeout.Error() }
func (e *timeoutError) Unwrap() error { return errScenarioTimeout }
func (e *timeoutError) note() string {
	return fmt.Sprintf(" (not counting %v in which conform was busy with the kernel's messages)", e.credited.Round(time.Millisecond))
}
