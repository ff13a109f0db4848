package mutation

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// memoryLimit is far above what a conform run needs (about 100 MiB) and far
// below what the machine shares with other work.
const memoryLimit = 2 << 30

// watchMemory kills p once its resident memory passes limit, setting hog.
// It reads /proc; where there is none it watches nothing. The returned
// function stops the watch.
func watchMemory(p *os.Process, limit int64, hog *atomic.Bool) func() {
	done := make(chan struct{})
	statm := "/proc/" + strconv.Itoa(p.Pid) + "/statm"
	if _, err := os.Stat(statm); err != nil {
		return func() {}
	}
	page := int64(os.Getpagesize())
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if rss(statm)*page > limit {
				hog.Store(true)
				_ = p.Kill()
				return
			}
		}
	}()
	return func() { close(done) }
}

// rss is the resident set size in pages from a /proc/<pid>/statm file, 0
// when it cannot be read (the process has gone).
func rss(statm string) int64 {
	b, err := os.ReadFile(statm)
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.ParseInt(f[1], 10, 64)
	return n
}

// runWatched runs cmd to its end under the memory watch, adding its CPU
// time to cpu (when not nil); hog says the watch killed it.
func runWatched(cmd *exec.Cmd, cpu *int64) (hog bool, err error) {
	var killed atomic.Bool
	err = cmd.Start()
	if err == nil {
		stop := watchMemory(cmd.Process, memoryLimit, &killed)
		err = cmd.Wait()
		stop()
		if cpu != nil {
			*cpu += cpuOf(cmd.ProcessState).Milliseconds()
		}
	}
	return killed.Load(), err
}
