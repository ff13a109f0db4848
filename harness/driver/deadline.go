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

// deadline is a scenario timeout that does not count conform's own time: a
// kernel that writes faster than conform reads waits on conform (its pipe is
// full), so the time conform's read loop spends handling the kernel's
// messages is added to the timeout each time it runs out, until the loop has
// caught up and the kernel still has not answered. The flood limits bound
// how long that can go on.
type deadline struct {
	k     *Kernel
	busy0 time.Duration

	mu       sync.Mutex
	credited time.Duration
	timer    *time.Timer
	cancel   context.CancelCauseFunc
}

func (k *Kernel) withDeadline(parent context.Context, timeout time.Duration) (context.Context, *deadline) {
	ctx, cancel := context.WithCancelCause(parent)
	d := &deadline{k: k, busy0: k.rpc.Busy(), cancel: cancel}
	d.mu.Lock()
	d.timer = time.AfterFunc(timeout, d.expire)
	d.mu.Unlock()
	return ctx, d
}

func (d *deadline) expire() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if extra := d.k.rpc.Busy() - d.busy0 - d.credited; extra > 0 {
		d.credited += extra
		d.timer.Reset(extra)
		return
	}
	d.cancel(errScenarioTimeout)
}

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
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.credited < time.Millisecond {
		return errScenarioTimeout
	}
	return &timeoutError{credited: d.credited}
}

// timeoutError is a scenario timeout that was extended by conform's busy
// time; its text says so, so that nobody reads it as conform's slowness.
type timeoutError struct{ credited time.Duration }

func (e *timeoutError) Error() string { return errScenarioTimeout.Error() }
func (e *timeoutError) Unwrap() error { return errScenarioTimeout }
func (e *timeoutError) note() string {
	return fmt.Sprintf(" (not counting %v conform spent reading the kernel's messages)", e.credited.Round(time.Millisecond))
}
