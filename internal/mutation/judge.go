package mutation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Status is a mutant's verdict.
type Status string

const (
	// Killed: a requirement of any profile failed or erred.
	Killed Status = "killed"
	// Crashed: the mutated kernel panicked and took the in-process run
	// down with it; over a pipe that is an error verdict, so it counts as
	// killed, but apart.
	Crashed Status = "crashed"
	// TimedOut: the run did not end within the per-mutant timeout; counted
	// as killed, but apart.
	TimedOut Status = "timeout"
	// Survived: no selected requirement failed or erred.
	Survived Status = "survived"
	// NotViable: the mutant does not compile; it is excluded from scores.
	NotViable Status = "not_viable"
	// HarnessError: conform exited 2 or 3 without a kernel panic; the
	// verdict is unknown and the mutant is excluded from scores.
	HarnessError Status = "harness_error"
)

// IsKill reports whether the status counts as a kill.
func (s Status) IsKill() bool { return s == Killed || s == Crashed || s == TimedOut }

// judge builds the conform CLI with one overlaid file and runs the suite
// against its embedded kernel. Nothing in the working tree is written.
type judge struct {
	root    string // module root, absolute
	goTool  string
	target  string // the package to build, ./cmd/conform
	tmp     string // a private folder for this campaign
	timeout time.Duration
	now     func() time.Time
	builds  atomic.Int64 // programs built to judge mutants
	// buildCPU is the CPU time (user and system, the compiler's and
	// linker's included) of the builds of mutants, in nanoseconds.
	buildCPU atomic.Int64
	// plugin, when set, judges by conform plugin (plugin.go).
	plugin *PluginUnit
	// kernel, when set, judges by conform run against a kernel built on
	// the tree (kitkernel.go).
	kernel *KernelUnit
	// runJobs, when set, is each judged run's -j (Config.RunJobs).
	runJobs int
	// servers, when set, keeps the judging servers of schema programs
	// (judgeserver.go).
	servers *servers
	// tally splits the CPU time of the campaign's runs and builds
	// (CPUFigures).
	tally tally
}

// cpuOf is the CPU time a finished command used, its waited-for children
// included (wait4 reports them with it); 0 when it did not start.
func cpuOf(ps *os.ProcessState) time.Duration {
	if ps == nil {
		return 0
	}
	return ps.UserTime() + ps.SystemTime()
}

// exe is one program to judge: a binary, the folder its run writes its
// report in, and its extra environment (the switch of a schema build).
type exe struct {
	bin, dir string
	env      []string
	// features, when set, is the tagged copy of the feature files
	// (scenarios.go) the run selects its scenarios from.
	features string
	// cpu, when set, adds up the CPU time of every run, in milliseconds.
	cpu *int64
	// timeout, when set, replaces the judge's per-run timeout.
	timeout time.Duration
	// cpuLimit, when set, is the CPU time a run may use (cpuBudget).
	cpuLimit time.Duration
	// serve runs it through a judging server (judgeserver.go), with
	// mutant switched on.
	serve  bool
	mutant int
	// setup marks the unmutated suite's run, whose CPU time is counted
	// as setup, not as judging (tally).
	setup bool
}

// verdict is what one run of the suite said.
type verdict struct {
	status  Status
	failing []string // requirement IDs that failed or erred
	detail  string   // build error, panic line, or harness error, trimmed
	took    time.Duration
	units   []string // with a tagged copy: the own tags of the failing scenarios
	spun    bool     // stopped for using more CPU than its budget
}

// linkFlags leave the symbol table and DWARF out of every program a
// campaign builds (the unmutated one, schema programs, mutants built
// alone, the coverage build): nothing a run does reads them (a panic's
// trace comes from the runtime's own tables), and linking without them
// takes about a third less CPU (measured: 10.5 against 14.8 CPU s for a
// mutant of refkernel/retry built alone), a 90 MB program instead of 130.
const linkFlags = "-s -w"

// build writes the mutated file and the overlay into dir and builds the
// binary there. src == nil builds the unmutated program.
func (j *judge) build(ctx context.Context, dir string, m *Mutant, src []byte) (string, error) {
	return j.buildCounting(ctx, dir, m, src, nil)
}

// buildCounting is build adding the build's CPU time, in milliseconds, to
// *cpu when cpu is set.
func (j *judge) buildCounting(ctx context.Context, dir string, m *Mutant, src []byte, cpu *int64) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "conform")
	args := []string{"build", "-o", bin, "-ldflags=" + linkFlags}
	if m != nil {
		mutated, err := m.Apply(src)
		if err != nil {
			return "", err
		}
		file := filepath.Join(dir, filepath.Base(m.File))
		if err := os.WriteFile(file, mutated, 0o644); err != nil {
			return "", err
		}
		ov, err := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(j.root, m.File): file}})
		if err != nil {
			return "", err
		}
		ovFile := filepath.Join(dir, "overlay.json")
		if err := os.WriteFile(ovFile, ov, 0o644); err != nil {
			return "", err
		}
		args = append(args, "-overlay", ovFile)
	}
	args = append(args, j.target)
	cmd := exec.CommandContext(ctx, j.goTool, args...)
	cmd.Dir = j.root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if m != nil {
		j.builds.Add(1)
	}
	err := cmd.Run()
	if m != nil {
		j.buildCPU.Add(int64(cpuOf(cmd.ProcessState)))
		j.tally.add(&j.tally.aloneCPU, cpuOf(cmd.ProcessState))
		j.tally.mu.Lock()
		j.tally.aloneBuilds++
		j.tally.mu.Unlock()
	} else {
		j.tally.add(&j.tally.baseline, cpuOf(cmd.ProcessState))
	}
	if cpu != nil {
		*cpu += cpuOf(cmd.ProcessState).Milliseconds()
	}
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", &buildError{out: strings.TrimSpace(out.String())}
	}
	return bin, nil
}

type buildError struct{ out string }

func (e *buildError) Error() string { return "build failed: " + firstLines(e.out, 3) }

// run runs the suite, restricted to tags, against bin's embedded kernel,
// stopping at the first failure (a kill needs one).
func (j *judge) run(ctx context.Context, bin, tags string) verdict {
	return j.runExe(ctx, exe{bin: bin, dir: filepath.Dir(bin)}, tags, true)
}

// runExe runs the suite, restricted to tags, against x; with failFast it
// stops at the first failure. A run that times out runs once more with
// twice the time before it counts as killed by timeout, and the second
// run's verdict is the one that counts: the timeout has a floor of a minute
// and is derived from the unmutated scenarios' times, so on a heavily
// loaded machine a slow but correct run could otherwise be a kill the
// mutant did not earn. A mutant that really hangs costs three times its
// timeout; there are few (37 of 1648 in a campaign).
func (j *judge) runExe(ctx context.Context, x exe, tags string, failFast bool) verdict {
	if j.plugin != nil {
		return j.plugin.runExe(ctx, j, x)
	}
	limit := j.timeout
	if x.timeout > 0 {
		limit = x.timeout
	}
	v := j.runOnce(ctx, x, tags, failFast, limit)
	if v.status != TimedOut || v.spun || ctx.Err() != nil {
		// A run over its CPU budget is not run again: a busy machine
		// lengthens a run's wall time, not the CPU time it uses.
		return v
	}
	first := v.took
	v = j.runOnce(ctx, x, tags, failFast, 2*limit)
	j.tally.timeoutRerun(v.status != TimedOut)
	v.took += first
	if v.status == TimedOut {
		v.detail = fmt.Sprintf("no verdict within %s, nor within %s when run again", limit, 2*limit)
	}
	return v
}

// runOnce is one run of the suite against x, restricted to tags, given up
// after limit.
func (j *judge) runOnce(ctx context.Context, x exe, tags string, failFast bool, limit time.Duration) verdict {
	bin := x.bin
	start := j.now()
	rep := filepath.Join(x.dir, "report.json")
	_ = os.Remove(rep)
	// --slow: a mutant is judged by every scenario, the slow ones included
	// (the default retry count is only seen by waiting it out).
	// --fail-fast: one failure is a kill; the scenarios after it would
	// only cost time (measured: a third of the run time of killed mutants).
	// scope runs to the end when that first failure does not come back.
	args := []string{"run", "-q", "--slow", "--require", "all", "--report-json", rep}
	if failFast {
		args = append(args, "--fail-fast")
	}
	if j.runJobs > 0 && !x.setup {
		// The unmutated suite's run keeps conform's default: its time
		// stands for the whole suite's.
		args = append(args, "-j", strconv.Itoa(j.runJobs))
	}
	if x.features != "" {
		args = append(args, "--features", x.features)
	}
	if tags != "" {
		args = append(args, "--tags", tags)
	}
	if x.serve && j.servers != nil {
		return j.runServed(ctx, x, args, rep, limit)
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	bin, args = j.command(bin, args, x.env)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = x.dir
	cmd.Env = append(runEnv(), x.env...)
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	var used int64
	hog, spun, err := runWatched(cmd, &used, x.cpuLimit)
	if x.cpu != nil {
		*x.cpu += used
	}
	if x.setup {
		j.tally.add(&j.tally.baseline, time.Duration(used)*time.Millisecond)
	} else {
		j.tally.run(used)
	}
	v := verdict{took: j.now().Sub(start)}
	var exit *exec.ExitError
	switch {
	case hog:
		// A mutant that grows without bound would take the machine's
		// memory from everyone else; it is stopped and counts as a crash.
		v.status, v.detail = Crashed, hogDetail
	case spun:
		v.status, v.spun, v.detail = TimedOut, true, spunDetail(x.cpuLimit)
	case ctx.Err() == context.DeadlineExceeded:
		v.status, v.detail = TimedOut, fmt.Sprintf("no verdict within %s", limit)
	case err == nil:
		v = verdictOf(v, 0, stderr.String(), rep)
	case errors.As(err, &exit):
		v = verdictOf(v, exit.ExitCode(), stderr.String(), rep)
	default:
		v.status, v.detail = HarnessError, fmt.Sprintf("%v: %s", err, firstLines(stderr.String(), 3))
	}
	return v
}

// hogDetail says why a run that used too much memory was stopped.
var hogDetail = fmt.Sprintf("used more than %d MiB of memory", memoryLimit>>20)

// spunDetail says why a run over its CPU budget was stopped. A kernel
// goroutine that loops without end (a loop condition negated, a counter
// that never moves) burns both cores for the whole timeout, and an
// in-process kernel left behind by its scenario goes on burning them
// after its verdict (205 CPU s for one mutant of a campaign).
func spunDetail(limit time.Duration) string {
	return fmt.Sprintf("used more than %s of CPU, %d times what the scenarios that reach it used against the unmutated kernel", limit, cpuMargin)
}

// verdictOf is the verdict of a run that ended with exit status code,
// having written stderr and the report rep.
func verdictOf(v verdict, code int, stderr, rep string) verdict {
	switch {
	case code == 0 || code == 1:
		// The report, not the exit status, is the verdict: conform's exit
		// status leaves out the rows of an opted-in profile (DF), which a
		// mutant breaks as surely as any other.
		v.failing, v.units = failures(rep)
		v.status = Survived
		if code != 0 || len(v.failing) > 0 {
			v.status = Killed
		}
	case isPanic(stderr):
		v.status, v.detail = Crashed, panicLine(stderr)
	case initFailed(rep, stderr):
		// A kernel that cannot even complete initialize is refused by
		// conform as a whole; that is a kill, whatever the exit status.
		v.status, v.failing, v.detail = Killed, failingIDs(rep), firstLines(stderr, 1)
	default:
		v.status, v.detail = HarnessError, fmt.Sprintf("exit status %d: %s", code, firstLines(stderr, 3))
	}
	return v
}

// failingIDs reads the requirement IDs that failed or erred from a JSON
// report; a report that cannot be read leaves the list empty (the exit
// status already said the run failed).
func failingIDs(path string) []string {
	ids, _ := failures(path)
	return ids
}

// failures reads the requirement IDs that failed or erred and, when the
// run selected from a tagged copy of the features, the own tags of the
// scenarios that failed or erred.
func failures(path string) (ids, units []string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil
	}
	var r struct {
		Requirements []struct{ ID, Status string } `json:"requirements"`
		Scenarios    []struct {
			Status string
			Tags   []string
		} `json:"scenarios"`
	}
	if json.Unmarshal(b, &r) != nil {
		return nil, nil
	}
	for _, q := range r.Requirements {
		if q.Status == "fail" || q.Status == "error" {
			ids = append(ids, q.ID)
		}
	}
	for _, sc := range r.Scenarios {
		if sc.Status != "fail" && sc.Status != "error" {
			continue
		}
		for _, t := range sc.Tags {
			if strings.HasPrefix(t, unitPrefix) {
				units = append(units, t)
			}
		}
	}
	slices.Sort(ids)
	slices.Sort(units)
	return ids, slices.Compact(units)
}

// initFailed reports a run that refused the kernel at initialize: the
// report, when conform wrote one, has every scenario in error; older
// versions only say so on stderr (harness/runner.InitError).
func initFailed(report, stderr string) bool {
	return len(failingIDs(report)) > 0 || strings.Contains(stderr, "the kernel could not be started and initialized")
}

func isPanic(stderr string) bool {
	return strings.Contains(stderr, "panic: ") || strings.Contains(stderr, "fatal error: ")
}

func panicLine(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
			return l
		}
	}
	return firstLines(stderr, 1)
}

func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " | ")
}
