package mutation

import (
	"runtime"
	"time"
)

// baselineTimeout bounds the unmutated suite's own run, whose time the
// per-mutant timeout is derived from.
const baselineTimeout = 10 * time.Minute

// minTimeout is the floor of a derived per-run timeout.
const minTimeout = 30 * time.Second

// timeoutMargin is how many times the unmutated suite's run a mutant's
// run may take before it counts as killed by timeout (the project's
// margin for anything timed: at least 5x nominal).
const timeoutMargin = 5

// timeoutFor derives the per-run timeout from the unmutated whole suite's
// run, measured alone: a package's scenarios are a subset of it. A run
// mostly waits (10.7 s of wall time for 2.5 s of CPU on the 2-core
// machine), so it only slows once there are more than about two runs per
// core; past that the nominal time grows with jobs/(2*cores). On 2 cores
// the suite takes about 11 s: the timeout is 54 s at -j 4, 80 s at -j 6,
// 107 s at -j 8 (the slowest survivor of the last campaign took 35 s for
// its two runs under load at -j 6).
func timeoutFor(suite time.Duration, jobs int) time.Duration {
	load := max(1, float64(jobs)/float64(2*runtime.NumCPU()))
	return max(minTimeout, time.Duration(float64(suite)*timeoutMargin*load).Round(time.Second))
}
