package driver

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The initialize clock does not run while the kernel waits for a CPU: a
// kernel kept from running the whole time is not timed out before the cap,
// one that ran (or slept) is timed out at its timeout.
func TestStartClockDoesNotCountTimeWaitingForACPU(t *testing.T) {
	const timeout = 100 * time.Millisecond
	began := time.Now()
	ctx, c := newStartClock(context.Background(), func() time.Duration { return time.Since(began) }, timeout, time.Now())
	defer c.stop()
	select {
	case <-ctx.Done():
		t.Fatalf("a kernel that waited for a CPU the whole time was timed out after %v", time.Since(began))
	case <-time.After(5 * timeout):
	}
	select {
	case <-ctx.Done():
		if !c.expired(ctx) {
			t.Errorf("ended by %v, not by the clock", context.Cause(ctx))
		}
		if !strings.Contains(c.note(), "waited for a CPU") {
			t.Errorf("note %q does not say what was not counted", c.note())
		}
	case <-time.After(guard):
		t.Fatalf("not timed out after %v: the cap of %d timeouts does not hold", guard, chargedCap)
	}

	began2 := time.Now()
	ctx, c2 := newStartClock(context.Background(), func() time.Duration { return 0 }, timeout, time.Now())
	defer c2.stop()
	select {
	case <-ctx.Done():
		if d := time.Since(began2); d < timeout {
			t.Errorf("timed out after %v, before the timeout", d)
		}
		if c2.note() != "" {
			t.Errorf("note %q, want none", c2.note())
		}
	case <-time.After(guard):
		t.Fatal("a kernel that could run was never timed out")
	}
}
