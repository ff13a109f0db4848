package adapter

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// starved is how long the kernel waited for a CPU while it could run: for
// each process of the kernel's group, the longest run-queue wait
// (schedstat, in proc(5)) of its threads, summed over the processes. Start-up
// is what it serves: a kernel that loads a large runtime on a machine busy
// with other work takes longer in wall time, and the part spent queued for
// a CPU is the machine's, not the kernel's. Per process the longest wait,
// not the sum, so that threads waiting at the same time are not counted
// several times; over processes the sum, because a start-up is often a
// chain of them (a version-manager shim runs a dozen short programs before
// the interpreter). A process is counted as it was last seen: callers
// sample while a kernel starts (driver's start clock), so that the waits
// of the short-lived ones are not lost when they exit.
func (b *box) starved() time.Duration {
	ps, err := scanProcs()
	if err != nil {
		return 0
	}
	b.waitMu.Lock()
	defer b.waitMu.Unlock()
	if b.waits == nil {
		b.waits = map[ident]time.Duration{}
	}
	for _, p := range ps {
		if p.pid != b.kernel.pid && (p.pgid != b.kernel.pid || p.start < b.kernel.start) {
			continue
		}
		if longest, ok := longestWait(p.pid); ok {
			id := p.ident()
			b.waits[id] = max(b.waits[id], longest)
		}
	}
	return b.sumWaits()
}

// starvedKnown is starved for the processes already seen, without a scan
// of every process: cheap enough to sample at each message of a session
// (Endpoint.CPUWait). The kernel's own process is always read; the others
// are the ones a starved call found (a launcher's chain at start-up).
func (b *box) starvedKnown() time.Duration {
	b.waitMu.Lock()
	defer b.waitMu.Unlock()
	if b.waits == nil {
		b.waits = map[ident]time.Duration{}
	}
	if _, ok := b.waits[b.kernel]; !ok {
		b.waits[b.kernel] = 0
	}
	for id, w := range b.waits {
		if p, ok := readStat(id.pid); !ok || p.ident() != id {
			continue // gone, or its number reused: counted as last seen
		}
		if longest, ok := longestWait(id.pid); ok {
			b.waits[id] = max(w, longest)
		}
	}
	return b.sumWaits()
}

func (b *box) sumWaits() time.Duration {
	var sum time.Duration
	for _, w := range b.waits {
		sum += w
	}
	return sum
}

// selfStarved is starved for this process: the harness, and a kernel it
// serves in-process.
func selfStarved() time.Duration {
	w, _ := longestWait(os.Getpid())
	return w
}

// SelfThreadsWait is how long this process's threads have waited for a CPU
// while they could run, summed over the threads (0 where it cannot be
// read). Unlike the watchdog's credit (the longest-waiting thread's), it
// grows with any one thread's wait: a test that times an in-process
// kernel credits it to a delay that may be any thread's.
func SelfThreadsWait() time.Duration {
	var sum time.Duration
	threadWaits(os.Getpid(), func(w time.Duration) { sum += w })
	return sum
}

// longestWait is the longest run-queue wait of one process's threads.
func longestWait(pid int) (time.Duration, bool) {
	var longest time.Duration
	ok := threadWaits(pid, func(w time.Duration) { longest = max(longest, w) })
	return longest, ok
}

// threadWaits hands each thread's run-queue wait of process pid to f.
func threadWaits(pid int, f func(time.Duration)) bool {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, t := range tasks {
		if w, ok := runQueueWait(dir + "/" + t.Name() + "/schedstat"); ok {
			f(w)
		}
	}
	return true
}

// runQueueWait reads the second field of a schedstat file: nanoseconds
// spent runnable but waiting for a CPU.
func runQueueWait(path string) (time.Duration, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(n), true
}
