package driver

import (
	"context"
	"errors"
	"time"
)

// errInitTimeout ends an initialize the kernel did not answer in time.
var errInitTimeout = errors.New("initialize timeout")

// startClock is the initialize timeout on a charged clock (charged.go)
// fed by adapter.Endpoint.Starved: start-up is measured from when the
// kernel could run, so a machine busy with other work, or with other
// kernels starting, does not turn a slow start into an `error` verdict of
// our making. A kernel that sleeps or blocks is charged every second of
// it; one kept from a CPU gets at most chargedCap timeouts of wall time.
type startClock struct {
	*charged
	cancel context.CancelCauseFunc
}

// newStartClock starts the clock at began, when the kernel was launched:
// an in-process kernel starts running before Launch returns, and a loaded
// machine can take a while to get back to the caller.
func newStartClock(parent context.Context, starved func() time.Duration, timeout time.Duration, began time.Time) (context.Context, *startClock) {
	ctx, cancel := context.WithCancelCause(parent)
	c := &startClock{cancel: cancel}
	c.charged = newCharged(timeout, began, starved, func() { cancel(errInitTimeout) })
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

// expired reports whether the clock, not the caller, ended ctx.
func (c *startClock) expired(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), errInitTimeout)
}

// note says what the clock did not count, if anything worth saying.
func (c *startClock) note() string {
	if d := c.credit(); d >= 10*time.Millisecond {
		return " (not counting " + d.Round(time.Millisecond).String() + " in which it waited for a CPU)"
	}
	return ""
}

func (c *startClock) stop() {
	c.charged.stop()
	c.cancel(context.Canceled)
}
