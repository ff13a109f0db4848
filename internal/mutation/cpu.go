package mutation

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// usedCPU is the processor time of this process and of every child it has
// waited for so far (builds, suite runs, coverage runs).
func usedCPU() time.Duration {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0
	}
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(children.Utime) + tv(children.Stime)
}

// tally adds up where a campaign's processor time goes, for CPUFigures:
// the judged runs, the timed-out runs run again, and the setup's parts.
type tally struct {
	mu                   sync.Mutex
	runs                 int
	runCPU               time.Duration
	reruns, rerunsEnded  int
	coverage, baseline   time.Duration
	schemaCPU, aloneCPU  time.Duration
	schemaN, aloneBuilds int
}

// run counts one judged run of the suite and its CPU time in milliseconds.
func (t *tally) run(ms int64) {
	t.mu.Lock()
	t.runs++
	t.runCPU += time.Duration(ms) * time.Millisecond
	t.mu.Unlock()
}

// timeoutRerun counts a timed-out run run again; ended says the second run
// came to a verdict.
func (t *tally) timeoutRerun(ended bool) {
	t.mu.Lock()
	t.reruns++
	if ended {
		t.rerunsEnded++
	}
	t.mu.Unlock()
}

// add adds d to one of the tally's durations.
func (t *tally) add(to *time.Duration, d time.Duration) {
	t.mu.Lock()
	*to += d
	t.mu.Unlock()
}

// runEnv is the environment of a conform run: this process's, with every
// PATH folder that holds a go command left out. Every conform process
// starts by running `go env GOTOOLDIR` (the init of godog's internal
// builder package, which conform run never uses): a whole Go program
// started beside each of the thousands of runs of a campaign, about a
// third of an empty run's CPU time and far more of its wall time on a
// loaded machine (20 starts of conform at load 50: 51-73 s with it, 9-27
// s without). Nothing a run of the embedded kernel does looks for go: the
// kernel is served in-process, and the harness starts a program only for
// --kernel.
//
// GOGC is 400 unless set: a run lives a second or two and its heap stays
// far below the memory watch's limit, so collecting a quarter as often
// saves about a tenth of its CPU time (interleaved runs, idle: one
// scenario 0.163 against 0.182 CPU s, five requirements' scenarios 0.277
// against 0.305).
func runEnv() []string {
	env := os.Environ()
	if _, set := os.LookupEnv("GOGC"); !set {
		env = append(env, "GOGC=400")
	}
	for i, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			var keep []string
			for _, dir := range filepath.SplitList(v) {
				if st, err := os.Stat(filepath.Join(dir, "go")); err == nil && !st.IsDir() {
					continue
				}
				keep = append(keep, dir)
			}
			env[i] = "PATH=" + strings.Join(keep, string(filepath.ListSeparator))
		}
	}
	return env
}
