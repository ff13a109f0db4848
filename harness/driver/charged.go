package driver

import (
	"sync"
	"time"
)

// chargedCap bounds, in multiples of its limit, how much wall time a
// charged timer may take: waiting for a CPU is not the kernel's fault, but
// a watchdog must fire some time (and a start-up must end).
const chargedCap = 30

// AfterCharged calls f once d of the kernel's time has passed: wall time
// less what the kernel and the harness spent waiting for a CPU (cpuWait,
// Kernel.CPUWait), or chargedCap times d of wall time, whichever comes
// first. The clock is read only when the wall-clock timer fires, so a
// watchdog that never fires costs nothing. stop cancels it and reports
// whether f had not yet been called.
func AfterCharged(d time.Duration, cpuWait func() time.Duration, f func()) (stop func() bool) {
	return newCharged(d, time.Now(), cpuWait, f).stop
}

// charged is the timer behind AfterCharged and the initialize timeout
// (startClock): one clock that does not run while the kernel waits for a
// CPU.
type charged struct {
	limit   time.Duration
	cpuWait func() time.Duration
	began   time.Time
	w0      time.Duration
	f       func()

	mu       sync.Mutex
	t        *time.Timer
	stopped  bool
	credited time.Duration // CPU waits counted when the timer last fired
}

// newCharged starts the clock at began, which may be in the past.
func newCharged(limit time.Duration, began time.Time, cpuWait func() time.Duration, f func()) *charged {
	c := &charged{limit: limit, cpuWait: cpuWait, began: began, w0: cpuWait(), f: f}
	c.mu.Lock()
	c.t = time.AfterFunc(max(0, limit-time.Since(began)), c.fire)
	c.mu.Unlock()
	return c
}

func (c *charged) fire() {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return
	}
	wall := time.Since(c.began)
	c.credited = max(0, c.cpuWait()-c.w0)
	// A millisecond's tolerance keeps the timer from chasing the last few
	// microseconds.
	if left := c.limit + c.credited - wall; left >= time.Millisecond && wall < chargedCap*c.limit {
		c.t.Reset(min(left, chargedCap*c.limit-wall))
		c.mu.Unlock()
		return
	}
	c.stopped = true
	c.mu.Unlock()
	c.f()
}

// credit is the CPU wait the clock had not counted when it last fired.
func (c *charged) credit() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.credited
}

// spent is the kernel's time so far: the wall time since began less what
// it spent waiting for a CPU.
func (c *charged) spent() time.Duration {
	return max(0, time.Since(c.began)-max(0, c.cpuWait()-c.w0))
}

func (c *charged) stop() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	was := !c.stopped
	c.stopped = true
	c.t.Stop()
	return was
}
