package runner

import (
	"fmt"
	"runtime"
	"time"
)

// AutoConcurrency as Options.Concurrency lets the run choose how many
// scenarios run in parallel once the kernel's first start-up is measured
// (AutoJobs).
const AutoConcurrency = -1

// AutoJobs is the parallelism of a run that did not set one. Scenarios
// mostly wait on the kernel, so six per core pays (12 on 2 cores: the whole
// suite in about 1.3 times its longest scenario); but every job is a kernel
// instance to start, so a kernel that is slow to start gets fewer: six per
// core divided by the seconds its first start-up took, never fewer than one
// per core nor more than 32. Verdicts never depend on it: kernels start a
// few at a time with their own clock (driver.Pool), so it only trades time.
func AutoJobs(cores int, firstStart time.Duration) int {
	cores = max(1, cores)
	jobs := 6 * cores
	if s := firstStart.Seconds(); s > 1 {
		jobs = int(float64(jobs) / s)
	}
	return min(32, max(cores, jobs))
}

// autoJobs chooses the parallelism of opt and says why, for the progress
// stream (not the report: it depends on the machine's load, and a report
// must not).
func autoJobs(firstStart time.Duration) (int, string) {
	cores := runtime.NumCPU()
	jobs := AutoJobs(cores, firstStart)
	return jobs, fmt.Sprintf("conform: %d parallel %s (-j: %d %s; the kernel's first start-up took %v, not counting waits for a CPU)",
		jobs, plural(jobs, "job", "jobs"), cores, plural(cores, "CPU", "CPUs"), firstStart.Round(time.Millisecond))
}
