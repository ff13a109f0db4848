package driver

import (
	"sync/atomic"
	"testing"
	"time"
)

// A charged timer does not count time spent waiting for a CPU: with the
// whole interval starved it fires only at its cap; with none, at its
// limit; stopped, never. Only lower bounds of elapsed time are asserted.
func TestAfterCharged(t *testing.T) {
	const d = 5 * time.Millisecond
	t.Run("not starved", func(t *testing.T) {
		began := time.Now()
		done := make(chan time.Duration, 1)
		AfterCharged(d, func() time.Duration { return 0 }, func() { done <- time.Since(began) })
		if got := <-done; got < d {
			t.Errorf("fired after %v, before its limit %v", got, d)
		}
	})
	t.Run("starved throughout", func(t *testing.T) {
		began := time.Now()
		done := make(chan time.Duration, 1)
		AfterCharged(d, func() time.Duration { return time.Since(began) }, func() { done <- time.Since(began) })
		if got := <-done; got < chargedCap*d {
			t.Errorf("fired after %v although every moment was spent waiting for a CPU; the cap is %v", got, chargedCap*d)
		}
	})
	t.Run("stopped", func(t *testing.T) {
		var fired atomic.Bool
		stop := AfterCharged(d, func() time.Duration { return 0 }, func() { fired.Store(true) })
		if !stop() {
			t.Error("stop before the limit reported the timer already fired")
		}
		time.Sleep(4 * d)
		if fired.Load() {
			t.Error("a stopped timer fired")
		}
	})
}
