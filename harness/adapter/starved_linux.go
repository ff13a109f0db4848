package adapter

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// starved is how long the kernel waited for a CPU while it could run: the
// longest run-queue wait (schedstat, in proc(5)) of any thread of any
// process of the kernel's group. Start-up is what it serves: a kernel that
// loads a large runtime on a machine busy with other work takes longer in
// wall time, and the part spent queued for a CPU is the machine's, not the
// kernel's. The longest wait, not the sum, so that many threads waiting at
// the same time are not counted several times.
func (b *box) starved() time.Duration {
	ps, err := scanProcs()
	if err != nil {
		return 0
	}
	var longest time.Duration
	for _, p := range ps {
		if p.pid != b.kernel.pid && (p.pgid != b.kernel.pid || p.start < b.kernel.start) {
			continue
		}
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", p.pid))
		if err != nil {
			continue
		}
		for _, t := range tasks {
			if w, ok := runQueueWait(fmt.Sprintf("/proc/%d/task/%s/schedstat", p.pid, t.Name())); ok {
				longest = max(longest, w)
			}
		}
	}
	return longest
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
