package fuzz

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"pgregory.net/rapid"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
)

// DefaultCases is how many sessions `conform fuzz` generates unless told
// otherwise.
const DefaultCases = 200

// Options configure a fuzz run.
type Options struct {
	Launcher adapter.Launcher
	Cases    int    // default DefaultCases
	Seed     uint64 // 0: a random seed
	// RealTime allows wall-clock cases that take real time (see
	// Capabilities.RealTime).
	RealTime bool
	// OutDir is where the shrunk failing case is written, in a folder of
	// its own: OutDir/seed-<seed>/conform-fuzz-<seed>.feature. Empty: not
	// written.
	OutDir string
	// ShrinkTime bounds the time spent shrinking a failure (default 30s).
	ShrinkTime      time.Duration
	ScenarioTimeout time.Duration // default 10s
	// Log, when set, receives rapid's progress lines.
	Log io.Writer
	// Workers is how many cases run at once while searching, each on a
	// kernel of its own (default 1; see workers). Shrinking runs one case
	// at a time.
	Workers int
	// ViaFeatures runs every case as its feature file, through godog as
	// `conform run --features` does, instead of from its lines
	// (runner.Lines). It is several times slower and finds the same: the
	// direct path is checked against it (TestFuzzFindsTheSameViaFeatures).
	ViaFeatures bool
}

// Result is what a fuzz run found.
type Result struct {
	Cases   int           // sessions run, shrinking included
	Elapsed time.Duration // wall-clock time of the whole run
	Seed    uint64
	Kernel  string
	// Failed: some generated session broke an invariant or faulted.
	Failed bool
	// FoundAfter is the number of the generated session that failed
	// first, before any shrinking.
	FoundAfter int
	// Failure is the verdict and message of the shrunk case.
	Failure string
	// Requirements are the requirements the shrunk case fails: the
	// requirement of the first failure found, which shrinking keeps, and
	// any other the smaller case happens to fail too.
	Requirements []string
	// Feature is the shrunk case as a feature file; FeaturePath where it
	// was written, if it was, and FeatureDir the folder to hand to
	// `conform run --features`.
	Feature     string
	FeaturePath string
	FeatureDir  string
}

// rapid keeps its settings in process-wide flags: one fuzz run at a time.
var runMu sync.Mutex

// Run generates sessions, runs each against the kernel as a one-scenario
// feature, and checks the loop invariants on its recorded log. The first
// failure is shrunk by rapid to a minimal session and rendered as a feature
// file that reproduces it.
func Run(ctx context.Context, opt Options) (Result, error) {
	runMu.Lock()
	defer runMu.Unlock()
	if opt.Cases <= 0 {
		opt.Cases = DefaultCases
	}
	if opt.ShrinkTime <= 0 {
		opt.ShrinkTime = 30 * time.Second
	}
	if opt.ScenarioTimeout <= 0 {
		opt.ScenarioTimeout = 10 * time.Second
	}
	if opt.Seed == 0 {
		opt.Seed = uint64(time.Now().UnixNano())
	}
	pool := driver.NewPool(opt.Launcher)
	defer pool.Close()
	lines, err := runner.NewLines(ctx, runner.Options{Launcher: opt.Launcher, Pool: pool, ScenarioTimeout: opt.ScenarioTimeout})
	if err != nil {
		return Result{}, fmt.Errorf("the kernel could not be started and initialized: %w", err)
	}
	info := lines.Info()
	caps := CapabilitiesOf(info, opt.RealTime)

	res := Result{Seed: opt.Seed, Kernel: info.Kernel.Name + " " + info.Kernel.Version}
	start := time.Now()
	runCase := func(c Case) (outcome, error) {
		if opt.ViaFeatures {
			return runOne(ctx, opt, pool, c.Feature(title(opt.Seed, c)))
		}
		return runLines(ctx, lines, c), nil
	}

	// The search: the cases rapid would generate, several at once.
	n := opt.Cases
	if short() {
		n /= 5 // as rapid does with -short
	}
	seeds := caseSeeds(opt.Seed, n)
	gen := rapid.Custom(func(t *rapid.T) Case { return Generate(t, caps) })
	type failure struct {
		c   Case
		out outcome
		err error
	}
	var failMu sync.Mutex
	failures := map[int]failure{}
	first, ran := explore(ctx, n, opt.workers(), func(i int) bool {
		c := gen.Example(int(seeds[i]))
		out, err := runCase(c)
		if err == nil && (out.status == report.Pass || out.status == report.NotReached) {
			return false
		}
		failMu.Lock()
		failures[i] = failure{c, out, err}
		failMu.Unlock()
		return true
	})
	if ctx.Err() != nil {
		res.Cases, res.Elapsed = ran, time.Since(start)
		return res, ctx.Err()
	}
	if first < 0 {
		res.Cases, res.Elapsed = n, time.Since(start)
		return res, nil
	}

	// A failure: rapid runs that case again, from the same seed, and
	// shrinks it, exactly as if its own search had found it.
	res.Cases = first
	restore, err := configureRapid(opt, seeds[first])
	if err != nil {
		return Result{}, err
	}
	defer restore()
	var last struct {
		feature, failure string
		failed           []string
	}
	// target is the requirement of the first failure found. Shrinking keeps
	// a smaller case only while it still fails that requirement, so the
	// written case is about one requirement, not whichever broke last.
	target := ""
	tb := &recorder{name: "conform-fuzz", log: opt.Log}
	rapid.Check(tb, func(t *rapid.T) {
		if ctx.Err() != nil {
			t.Skip("interrupted")
		}
		c := Generate(t, caps)
		res.Cases++
		out, err := runCase(c)
		if err != nil {
			t.Fatalf("the harness could not run the case: %v", err)
		}
		if out.status == report.Pass || out.status == report.NotReached {
			return
		}
		if target == "" {
			target = "scenario " + string(out.status)
			if len(out.failed) > 0 {
				target = out.failed[0]
			}
		}
		if !slices.Contains(out.failed, target) && target != "scenario "+string(out.status) {
			return // a smaller case that fails something else: not this failure
		}
		if res.FoundAfter == 0 {
			res.FoundAfter = res.Cases
		}
		feature := c.Feature(title(opt.Seed, c))
		last.feature, last.failure, last.failed = feature, fmt.Sprintf("%s: %s", out.status, out.failure), out.failed
		t.Fatalf("%s", last.failure)
	})
	res.Elapsed = time.Since(start)
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	if !tb.failed {
		// The case failed in the search and passed when rapid ran it
		// again: it is reported as found, unshrunk.
		f := failures[first]
		res.FoundAfter = first + 1
		if f.err != nil {
			res.Failed = true
			return res, fmt.Errorf("the harness could not run the case: %w", f.err)
		}
		last.feature = f.c.Feature(title(opt.Seed, f.c))
		last.failure, last.failed = fmt.Sprintf("%s: %s", f.out.status, f.out.failure), f.out.failed
		tb.failed = true
	}
	res.Failed = true
	if last.feature == "" { // a harness problem, not a kernel failure
		return res, errors.New(strings.Join(tb.errors, "\n"))
	}
	res.Failure, res.Feature, res.Requirements = last.failure, last.feature, last.failed
	if opt.OutDir != "" {
		res.FeatureDir = filepath.Join(opt.OutDir, fmt.Sprintf("seed-%d", opt.Seed))
		if err := os.MkdirAll(res.FeatureDir, 0o755); err != nil {
			return res, err
		}
		res.FeaturePath = filepath.Join(res.FeatureDir, fmt.Sprintf("conform-fuzz-%d.feature", opt.Seed))
		if err := os.WriteFile(res.FeaturePath, []byte(res.Feature), 0o644); err != nil {
			return res, err
		}
	}
	return res, nil
}

// outcome is one rendered case's verdict: the scenario's status, its
// failure text, and the requirements that failed or ended in error.
type outcome struct {
	status  report.Status
	failure string
	failed  []string
}

// runLines runs one case from its lines, without godog, and returns its
// verdict.
func runLines(ctx context.Context, l *runner.Lines, c Case) outcome {
	return outcomeOf(l.Run(ctx, caseFile, scenarioName, c.Tags(), c.Lines()))
}

// caseFile is the name a case's feature file is run under.
const caseFile = "case.feature"

// runOne runs one rendered case as a feature file, through godog as
// `conform run --features` does, and returns its verdict.
func runOne(ctx context.Context, opt Options, pool *driver.Pool, feature string) (outcome, error) {
	r, err := runner.Run(ctx, runner.Options{
		Launcher: opt.Launcher, Pool: pool,
		FS: fstest.MapFS{caseFile: {Data: []byte(feature)}}, Root: ".",
		Concurrency: 1, ScenarioTimeout: opt.ScenarioTimeout,
	})
	if err != nil {
		return outcome{}, err
	}
	if len(r.Scenarios) != 1 {
		return outcome{}, fmt.Errorf("expected one scenario, the run reported %d", len(r.Scenarios))
	}
	return outcomeOf(r), nil
}

// outcomeOf reads the verdict of a one-scenario report.
func outcomeOf(r *report.Report) outcome {
	sc := r.Scenarios[0]
	o := outcome{status: sc.Status, failure: sc.Failure}
	for _, q := range r.Requirements {
		if q.Status == report.Fail || q.Status == report.Error {
			o.failed = append(o.failed, q.ID)
		}
	}
	sort.Strings(o.failed)
	return o
}

// title is the feature's description line.
func title(seed uint64, c Case) string { return fmt.Sprintf("Seed %d. %s", seed, describe(c)) }

// describe is a one-line summary of a case for the feature's title.
func describe(c Case) string {
	parts := []string{fmt.Sprintf("max_turns %d", c.MaxTurns)}
	if c.MaxCostUSD != nil {
		parts = append(parts, "max_cost_usd "+num(*c.MaxCostUSD))
	}
	if c.WallClockS != nil {
		parts = append(parts, "max_wall_clock_s "+num(*c.WallClockS))
	}
	if c.Threshold != nil {
		parts = append(parts, fmt.Sprintf("doom-loop threshold %d", *c.Threshold))
	}
	return fmt.Sprintf("A session of %d scripted replies; %s.", len(c.Replies), strings.Join(parts, ", "))
}

// configureRapid sets rapid's process-wide flags for shrinking the case
// of seed and returns a function that puts the old values back. Outside a
// test binary the testing flags rapid reads must exist and be parsed
// first.
func configureRapid(opt Options, seed uint64) (func(), error) {
	if flag.Lookup("test.short") == nil {
		testing.Init()
	}
	if !flag.Parsed() {
		if err := flag.CommandLine.Parse(nil); err != nil {
			return nil, err
		}
	}
	old := map[string]string{}
	restore := func() {
		for name, v := range old {
			_ = flag.Set(name, v)
		}
	}
	for name, v := range map[string]string{
		"rapid.checks":     strconv.Itoa(oneCheck()),
		"rapid.seed":       strconv.FormatUint(seed, 10),
		"rapid.nofailfile": "true",
		"rapid.shrinktime": opt.ShrinkTime.String(),
	} {
		f := flag.Lookup(name)
		if f == nil {
			restore()
			return nil, fmt.Errorf("rapid has no flag %s", name)
		}
		old[name] = f.Value.String()
		if err := flag.Set(name, v); err != nil {
			restore()
			return nil, fmt.Errorf("rapid flag %s: %w", name, err)
		}
	}
	return restore, nil
}

// recorder is the rapid.TB of a fuzz run: it keeps the verdict instead of
// failing a test, so the same engine serves `go test` and `conform fuzz`.
type recorder struct {
	name   string
	log    io.Writer
	mu     sync.Mutex
	failed bool
	errors []string
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return r.name }
func (r *recorder) Logf(format string, args ...any) {
	if r.log != nil {
		fmt.Fprintf(r.log, format+"\n", args...)
	}
}
func (r *recorder) Log(args ...any)                  { r.Logf("%s", fmt.Sprint(args...)) }
func (r *recorder) Skipf(format string, args ...any) { r.Logf(format, args...) }
func (r *recorder) Skip(args ...any)                 { r.Log(args...) }
func (r *recorder) SkipNow()                         {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	r.failed = true
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
	r.mu.Unlock()
	r.Logf(format, args...)
}
func (r *recorder) Error(args ...any)                 { r.Errorf("%s", fmt.Sprint(args...)) }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *recorder) Fatal(args ...any)                 { r.Error(args...) }
func (r *recorder) FailNow()                          { r.Fail() }
func (r *recorder) Fail() {
	r.mu.Lock()
	r.failed = true
	r.mu.Unlock()
}
func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}
