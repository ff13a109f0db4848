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
	return watch(p, limit, 0, 0, hog, nil)
}

// watch kills p once its resident memory passes memLimit, setting hog, or,
// when cpuLimit > 0, once the CPU time it used past cpuBase (a judging
// server's CPU time when its run began; 0 for a process of its own)
// passes cpuLimit, setting spin. It reads /proc; where there is none it
// watches nothing. The returned function stops the watch.
func watch(p *os.Process, memLimit int64, cpuBase, cpuLimit time.Duration, hog, spin *atomic.Bool) func() {
	done := make(chan struct{})
	proc := "/proc/" + strconv.Itoa(p.Pid)
	if _, err := os.Stat(proc + "/statm"); err != nil {
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
			if rss(proc+"/statm")*page > memLimit {
				hog.Store(true)
				_ = p.Kill()
				return
			}
			if cpuLimit > 0 && procCPU(proc+"/stat")-cpuBase > cpuLimit {
				spin.Store(true)
				_ = p.Kill()
				return
			}
		}
	}()
	return func() { close(done) }
}

// userHZ is the unit of /proc's CPU times on Linux (USER_HZ, 100 on every
// architecture Go builds for).
const userHZ = 100

// procCPU is the CPU time (user and system, every thread) from a
// /proc/<pid>/stat file, 0 when it cannot be read (the process has gone).
func procCPU(stat string) time.Duration {
	b, err := os.ReadFile(stat)
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is field 3, utime 14, stime 15.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * time.Second / userHZ
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

// runWatched runs cmd to its end under the memory watch and, when cpuLimit
// > 0, a watch of its CPU time, adding its CPU time to cpu (when not nil);
// hog and spin say which watch killed it.
func runWatched(cmd *exec.Cmd, cpu *int64, cpuLimit time.Duration) (hog, spin bool, err error) {
	var killed, spun atomic.Bool
	err = cmd.Start()
	if err == nil {
		stop := watch(cmd.Process, memoryLimit, 0, cpuLimit, &killed, &spun)
		err = cmd.Wait()
		stop()
		if cpu != nil {
			*cpu += cpuOf(cmd.ProcessState).Milliseconds()
		}
	}
	return killed.Load(), spun.Load(), err
}
