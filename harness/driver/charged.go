package driver

import (
	"sync"
	"time"
)

// chargedCap bounds, in multiples of its limit, how much wall time a
// charged timer may take: waiting for a CPU is not the kernel's fault, but
// a watchdog must fire some time.
const chargedCap = 30

// AfterCharged calls f once d of the kernel's time has passed: wall time
// less what the kernel and the harness spent waiting for a CPU (cpuWait,
// Kernel.CPUWait), or chargedCap times d of wall time, whichever comes
// first. The clock is read only when the wall-clock timer fires, so a
// watchdog that never fires costs nothing. stop cancels it and reports
// whether f had not yet been called.
func AfterCharged(d time.Duration, cpuWait func() time.Duration, f func()) (stop func() bool) {
	c := &charged{limit: d, cpuWait: cpuWait, began: time.Now(), w0: cpuWait(), f: f}
	c.mu.Lock()
	c.t = time.AfterFunc(d, c.fire)
	c.mu.Unlock()
	return c.stop
}

type charged struct {
	limit   time.Duration
	cpuWait func() time.Duration
	began   time.Time
	w0      time.Duration
	f       func()

	mu      sync.Mutex
	t       *time.Timer
	stopped bool
}

func (c *charged) fire() {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return
	}
	wall := time.Since(c.began)
	credit := max(0, c.cpuWait()-c.w0)
	if left := c.limit + credit - wall; left >= time.Millisecond && wall < chargedCap*c.limit {
		c.t.Reset(min(left, chargedCap*c.limit-wall))
		c.mu.Unlock()
		return
	}
	c.stopped = true
	c.mu.Unlock()
	c.f()
}

func (c *charged) stop() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	was := !c.stopped
	c.stopped = true
	c.t.Stop()
	return was
}
