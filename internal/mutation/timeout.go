package mutation

import (
	"runtime"
	"time"
)

// baselineTimeout bounds the unmutated suite's own run, whose time the
// per-mutant timeout is derived from.
const baselineTimeout = 10 * time.Minute

// minTimeout is the floor of a derived per-run timeout. A kernel that
// hangs is reported by the harness itself: its scenario's session times
// out after 20 s, the in-process kernel is left behind after a 5 s grace,
// and the run's other kernels are shut down; about 31 s in all, so a 30 s
// floor timed such a run out and ran it again with twice the time (one
// mutant held its worker for 199 s that way, at a campaign's end).
const minTimeout = time.Minute

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

// startAllowance is what one conform run costs besides its scenarios:
// starting a 130 MB binary and reading the feature files (about 0.4 CPU s).
const startAllowance = time.Second

// runTimeout is the timeout of one run of the scenarios that reach a
// mutant, from their own times against the unmutated kernel (reach.nominal
// splits them into the longest one's wall time and the others' CPU time
// shared by the cores), instead of the whole suite's: a mutant reached by a handful of
// one-second scenarios that hangs was held for 5x the whole suite (about
// five minutes at -j 6, since ER-01's minute of retries bounds the suite),
// 37 of them in a campaign. The longest scenario is not stretched by load:
// what makes a scenario long is waiting out real schedules (ER-01 sleeps
// through a minute of backoff for about 1.5 CPU s), which a busy machine
// does not lengthen. The others and the start are stretched as timeoutFor
// stretches a whole run: by jobs/(2*cores) past two runs per core. The
// margin (5x) and the floor (a minute, above the harness's own 20 s scenario
// timeout, so a hang the harness reports stays a kill by that report) are
// the same as for a whole run.
func runTimeout(longest, rest time.Duration, jobs int) time.Duration {
	load := max(1, float64(jobs)/float64(2*runtime.NumCPU()))
	nominal := float64(longest) + float64(rest+startAllowance)*load
	return max(minTimeout, time.Duration(nominal*timeoutMargin).Round(time.Second))
}

// cpuMargin and minCPUBudget make a run's CPU budget: cpuMargin times the
// CPU time the scenarios reaching a mutant used in their coverage runs
// against the unmutated kernel (each run alone, so each pays a start and
// the coverage counters: more than a judged run of them together needs),
// at least minCPUBudget. CPU time, unlike wall time, does not grow with
// the machine's load, so the budget needs no stretching.
const (
	cpuMargin    = 5
	minCPUBudget = 15 * time.Second
)

// cpuBudget is the CPU time a run of scenarios that used cpu against the
// unmutated kernel may use against a mutant.
func cpuBudget(cpu time.Duration) time.Duration {
	return max(minCPUBudget, cpuMargin*cpu)
}
