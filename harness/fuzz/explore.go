package fuzz

import (
	"context"
	"flag"
	"sync"
	"sync/atomic"
)

// The search runs the cases rapid's own search would run, in the same
// order of seeds, on several kernels at once (a session per case, the
// kernels kept across cases): a generated session spends much of its time
// waiting on the other side of the pipe, and the machine has more than one
// core. The first failing case, in that order, is handed to rapid, which
// runs it again from its seed and shrinks it as if its own search had found
// it, so the search finds what a one-at-a-time search finds, after the same
// number of cases (TestSearchDrawsRapidsCases holds the generation to
// rapid's).

// caseSeeds are the seeds rapid gives its first n cases from seed: it adds
// the case's number to the previous seed.
func caseSeeds(seed uint64, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		seed += uint64(i)
		out[i] = seed
	}
	return out
}

// oneCheck is the rapid.checks that runs exactly one case: rapid runs a
// fifth of its checks with -short.
func oneCheck() int {
	if short() {
		return 5
	}
	return 1
}

// short is testing.Short in a test binary run with -short, and false
// elsewhere (conform fuzz has no testing flags until rapid needs them).
func short() bool {
	f := flag.Lookup("test.short")
	return f != nil && f.Value.String() == "true"
}

// workers is one unless told otherwise; conform fuzz asks for one more
// than the cores. Three workers on this 2-core machine ran 1.4 to 1.7 times
// as many cases a second as one in interleaved runs (a session waits
// between messages and, in a quarter of the wall-clock cases, on a call
// held 10 ms). They were not the default while the generated cases' time
// limit ("the session runs for at most 5 seconds") counted wall time: at
// loads of 40 and more the machine starves the process now and then (a
// run's goroutines waited tens of seconds, summed, to be scheduled), more
// often with several sessions in flight, and one 400-case search at a load
// of 60 with three workers failed a case that passed when rapid ran it
// again. That limit now leaves out the time spent waiting for a CPU
// (driver.Kernel.WatchdogWait: the kernel's processes and the harness's,
// or, in-process, the whole process's; issue 25).
func (o Options) workers() int {
	return max(o.Workers, 1)
}

// explore runs cases 0..n-1 with failed on workers goroutines and returns
// the first case that failed (-1: none) and how many ran. Once a case has
// failed no later case starts; earlier ones still running finish, since
// one of them may fail too and come first.
func explore(ctx context.Context, n, workers int, failed func(i int) bool) (first, ran int) {
	var next, count atomic.Int64
	var lowest atomic.Int64
	lowest.Store(int64(n))
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= lowest.Load() {
					return
				}
				count.Add(1)
				if !failed(int(i)) {
					continue
				}
				for {
					l := lowest.Load()
					if i >= l || lowest.CompareAndSwap(l, i) {
						break
					}
				}
			}
		})
	}
	wg.Wait()
	if l := int(lowest.Load()); l < n {
		return l, int(count.Load())
	}
	return -1, int(count.Load())
}
