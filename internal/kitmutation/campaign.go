package kitmutation

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentconform/conform/internal/kittranscript"
	"github.com/agentconform/conform/internal/mutation"
)

// Config is one kit campaign.
type Config struct {
	Root string // module root
	Kit  Kit
	// Conform is a built conform CLI; empty builds one.
	Conform string
	Jobs    int // mutants judged at once (default 2)
	RunJobs int // each conform run's -j (default 4)
	// Sample judges only this many mutants per file, seeded; 0: all.
	Sample int
	Seed   uint64
	// Only judges the mutants at these places (file:line) or keys.
	Only            []string
	Classifications map[string]mutation.Classification
	Commit          string
	Log             io.Writer
	// Journal, when set, gets every verdict as a JSON line as it comes;
	// with FromJournal the report is made of the verdicts already there,
	// without judging. Mutants are judged in a seeded random order, so
	// the verdicts of a campaign stopped early are a random sample.
	Journal     string
	FromJournal bool
	// Carry is an earlier journal of the same kit whose kills and
	// mutants that do not compile are taken instead of judged again (its
	// survivors are judged again: a new check may kill them); CarryFrom
	// names it in the report.
	Carry, CarryFrom string
	// OnlyCarried judges only the mutants Carry holds: a sample judged
	// again after new checks, its kills carried, its survivors judged.
	OnlyCarried bool
}

// judge is one judge of a campaign: the self-test's transcript or a kernel,
// with its baseline and timeout.
type judge struct {
	name     string
	kernel   *Kernel
	baseline map[string]bool // file:line of the scenarios that pass twice
	tags     string          // the tag expression selecting them
	timeout  time.Duration
}

// campaign is a running campaign's state.
type campaign struct {
	cfg      Config
	tmp      string
	features string
	unitTag  map[string]string // file:line -> tag
	work     string            // Node: the instrumented copy
	judges   []*judge
	reachPy  map[int]bool    // Python: executed lines of the kit file
	reachJS  map[string]bool // Node: executed mutant ids
	mu       sync.Mutex
	cpu      time.Duration
}

// Run judges the kit's mutants and returns the report.
func Run(ctx context.Context, cfg Config) (*mutation.Report, error) {
	start := time.Now()
	if cfg.Jobs <= 0 {
		cfg.Jobs = 2
	}
	if cfg.RunJobs <= 0 {
		cfg.RunJobs = 4
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	root, err := filepath.Abs(cfg.Root)
	if err != nil {
		return nil, err
	}
	cfg.Root = root
	tmp, err := os.MkdirTemp("", "kitmutate-"+cfg.Kit.Name+"-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	c := &campaign{cfg: cfg, tmp: tmp, features: filepath.Join(tmp, "features")}
	if c.unitTag, err = mutation.TagFeatures(filepath.Join(root, "features"), c.features); err != nil {
		return nil, err
	}
	if cfg.Conform == "" {
		cfg.Conform = filepath.Join(tmp, "conform")
		build := exec.CommandContext(ctx, "go", "build", "-o", cfg.Conform, "./cmd/conform")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building conform: %v\n%s", err, out)
		}
		c.cfg.Conform = cfg.Conform
	}
	if !cfg.Kit.node {
		// The python3 on PATH may be a version manager's shim, a shell
		// script that costs more than the interpreter's own start in each
		// of the thousands of kernels a campaign starts.
		exe, err := exec.CommandContext(ctx, "python3", "-c", "import sys; print(sys.executable)").Output()
		if err != nil {
			return nil, fmt.Errorf("python3: %w", err)
		}
		c.cfg.Kit = withPython(cfg.Kit, strings.TrimSpace(string(exe)))
	}
	ms, err := c.list(ctx)
	if err != nil {
		return nil, err
	}
	total := len(ms)
	// A sample judged again after its kit changed loses the mutants of the
	// changed code (their keys name the old text): readJournal names them.
	var lenient io.Writer
	if cfg.OnlyCarried {
		if cfg.Carry == "" {
			return nil, fmt.Errorf("-only-carried needs -carry")
		}
		lenient = cmp.Or[io.Writer](cfg.Log, io.Discard)
		old, err := readJournal(cfg.Carry, ms, lenient)
		if err != nil {
			return nil, err
		}
		keys := map[string]bool{}
		for _, r := range old {
			keys[r.Key] = true
		}
		ms = slices.DeleteFunc(ms, func(m mutant) bool { return !keys[m.Key] })
		lenient = io.Discard // named once
	}
	ms = choose(ms, cfg)
	all := len(ms)
	if cfg.OnlyCarried {
		all = total // a sample judged again is still a sample of the kit
	}
	rand.New(rand.NewPCG(cfg.Seed, 30)).Shuffle(len(ms), func(a, b int) { ms[a], ms[b] = ms[b], ms[a] })
	fmt.Fprintf(cfg.Log, "%s: %d mutants\n", cfg.Kit.Name, len(ms))
	var results []mutation.Result
	var head journalHead
	if cfg.FromJournal {
		if results, err = readJournal(cfg.Journal, ms, nil); err != nil {
			return nil, err
		}
		b, err := os.ReadFile(cfg.Journal + ".head")
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &head); err != nil {
			return nil, err
		}
	} else {
		if err := c.setup(ctx); err != nil {
			return nil, err
		}
		head.SetupCPU = c.cpu.Seconds()
		for _, j := range c.judges {
			head.Judges = append(head.Judges, fmt.Sprintf("%s (%d scenarios, timeout %s)", j.name, len(j.baseline), j.timeout.Round(time.Second)))
		}
		if cfg.Journal != "" {
			b, _ := json.Marshal(head)
			if err := os.WriteFile(cfg.Journal+".head", b, 0o644); err != nil {
				return nil, err
			}
		}
		carried := map[string]mutation.Result{}
		if cfg.Carry != "" {
			old, err := readJournal(cfg.Carry, ms, lenient)
			if err != nil {
				return nil, err
			}
			for _, r := range old {
				if r.Status.IsKill() || r.Status == mutation.NotViable {
					r.CarriedFrom = cmp.Or(cfg.CarryFrom, cfg.Carry)
					carried[r.Key] = r
				}
			}
		}
		if results, err = c.judgeAll(ctx, ms, carried); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(results, func(a, b mutation.Result) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col), strings.Compare(a.Key, b.Key))
	})
	pkgs := []mutation.Package{{Dir: cfg.Kit.Dir, Files: cfg.Kit.Files}}
	mcfg := mutation.Config{Tree: cfg.Kit.Dir, Classifications: cfg.Classifications, Commit: cfg.Commit, Jobs: cfg.Jobs, PerPackage: cfg.Sample, Seed: cfg.Seed}
	r := mutation.NewReport(mcfg, pkgs, results, time.Since(start))
	r.Kit = cfg.Kit.Title
	if len(results) < all {
		r.Incomplete, r.KitMutants = true, all
	}
	r.Tool = "conform internal/kitmutation: mutants by pymutate.py (Python's ast, internal/mutation's operators)"
	if cfg.Kit.node {
		r.Tool = "conform internal/kitmutation: mutants by Stryker's instrumenter 10.1.1 (mutant schema, __STRYKER_ACTIVE_MUTANT__; StringLiteral left out)"
	}
	r.KitJudges = "by the first of these that kills it (" + strings.Join(head.Judges, "; ") +
		"): the self-test's transcript validated against the wire schemas, then conform run against each kernel on the kit restricted to the scenarios it passes twice against the unmutated kit, --fail-fast, a kill reproduced by running the failing scenarios again; not the kit's unit-test assertions"
	r.CPU = &mutation.CPUFigures{Setup: head.SetupCPU, Total: c.cpu.Seconds()}
	if cfg.FromJournal {
		// The judging's own times, as the journal has them: the wall time
		// is the judges' summed over jobs.
		r.FromJournal, r.CPU.Total, r.DurationS = true, head.SetupCPU, 0
		for _, res := range results {
			r.CPU.Total += float64(res.CPUMillis) / 1000
			r.DurationS += float64(res.Millis) / 1000 / float64(cfg.Jobs)
		}
	}
	before := make([]mutation.Result, len(results))
	for i, res := range results {
		if res.Status.IsKill() && res.Scope == "full" {
			res.Status, res.Failing = mutation.Survived, nil
		}
		before[i] = res
	}
	b := mutation.ScoreOf("the self-test's transcript and the toy kernel only", before, cfg.Classifications)
	r.Before = &b
	return r, nil
}

// withPython is k with its commands run by the interpreter py.
func withPython(k Kit, py string) Kit {
	k.Kernels = slices.Clone(k.Kernels)
	for i := range k.Kernels {
		k.Kernels[i].Argv = append([]string{py}, k.Kernels[i].Argv[1:]...)
	}
	k.SelfTest = append([]string{py}, k.SelfTest[1:]...)
	return k
}

// list enumerates the kit's mutants (and, for Node, writes the
// instrumented copy).
func (c *campaign) list(ctx context.Context) ([]mutant, error) {
	k := c.cfg.Kit
	if k.node {
		c.work = filepath.Join(c.tmp, "node")
		ms, err := listNode(ctx, c.cfg.Root, c.work, k)
		if err != nil {
			return nil, err
		}
		return ms, copyFiles(c.cfg.Root, k, c.work, k.Copy)
	}
	ms, err := listPython(ctx, c.cfg.Root, c.tmp, k)
	if err != nil {
		return nil, err
	}
	c.work = filepath.Join(c.tmp, "base")
	return ms, copyFiles(c.cfg.Root, k, c.work, append(slices.Clone(k.Files), k.Copy...))
}

// choose applies -only and -sample.
func choose(ms []mutant, cfg Config) []mutant {
	if len(cfg.Only) > 0 {
		var out []mutant
		for _, m := range ms {
			for _, o := range cfg.Only {
				if o == m.Key || o == fmt.Sprintf("%s:%d", m.File, m.Line) || o == m.Pos() {
					out = append(out, m)
					break
				}
			}
		}
		return out
	}
	if cfg.Sample <= 0 {
		return ms
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 29))
	byFile := map[string][]int{}
	for i, m := range ms {
		byFile[m.File] = append(byFile[m.File], i)
	}
	// Files in a fixed order: the same seed must draw the same sample,
	// and a map's order is random.
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	slices.Sort(files)
	var keep []int
	for _, f := range files {
		idx := byFile[f]
		rng.Shuffle(len(idx), func(a, b int) { idx[a], idx[b] = idx[b], idx[a] })
		keep = append(keep, idx[:min(cfg.Sample, len(idx))]...)
	}
	slices.Sort(keep)
	out := make([]mutant, len(keep))
	for i, k := range keep {
		out[i] = ms[k]
	}
	return out
}

// setup measures reach and each judge's baseline against the unmutated
// kit: one traced run of every judge (all scenarios for a kernel), then a
// plain run of the scenarios the traced one passed; the scenarios passed
// both times are the kernel's baseline, the plain run's time its timeout.
func (c *campaign) setup(ctx context.Context) error {
	k := c.cfg.Kit
	reach := filepath.Join(c.tmp, "reach")
	if err := os.MkdirAll(reach, 0o755); err != nil {
		return err
	}
	t0 := time.Now()
	problems, _, err := c.transcript(ctx, c.work, "", reach, 10*time.Minute)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("the unmutated kit's self-test transcript does not validate: %s", problems[0])
	}
	c.judges = append(c.judges, &judge{name: "transcript", timeout: max(time.Minute, 5*time.Since(t0))})
	for i := range k.Kernels {
		kern := &k.Kernels[i]
		first, _, err := c.conform(ctx, c.work, kern, "", "", reach, false, 15*time.Minute)
		if err != nil {
			return fmt.Errorf("%s kernel, traced run: %w", kern.Name, err)
		}
		passed := first.passed()
		j := &judge{name: kern.Name + " kernel", kernel: kern, baseline: map[string]bool{}}
		t1 := time.Now()
		second, _, err := c.conform(ctx, c.work, kern, "", c.tagsOf(passed), "", false, 15*time.Minute)
		if err != nil {
			return fmt.Errorf("%s kernel, baseline run: %w", kern.Name, err)
		}
		for _, s := range second.passed() {
			if slices.Contains(passed, s) {
				j.baseline[s] = true
			}
		}
		j.timeout = max(time.Minute, 5*time.Since(t1))
		var keep []string
		for s := range j.baseline {
			keep = append(keep, s)
		}
		slices.Sort(keep)
		j.tags = c.tagsOf(keep)
		fmt.Fprintf(c.cfg.Log, "%s: %s kernel passes %d scenarios twice (%d once), timeout %s\n", k.Name, kern.Name, len(keep), len(passed), j.timeout)
		c.judges = append(c.judges, j)
	}
	return c.readReach(reach)
}

func (c *campaign) tagsOf(scenarios []string) string {
	var tags []string
	for _, s := range scenarios {
		if t, ok := c.unitTag[s]; ok {
			tags = append(tags, t)
		}
	}
	return strings.Join(tags, ",")
}

// readReach unions what every traced process recorded.
func (c *campaign) readReach(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("no traced process recorded what it executed")
	}
	c.reachPy, c.reachJS = map[int]bool{}, map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if c.cfg.Kit.node {
			var ids []string
			if json.Unmarshal(b, &ids) == nil {
				for _, id := range ids {
					c.reachJS[id] = true
				}
			}
			continue
		}
		var lines []int
		if json.Unmarshal(b, &lines) == nil {
			for _, l := range lines {
				c.reachPy[l] = true
			}
		}
	}
	return nil
}

func (c *campaign) reached(m mutant) bool {
	if c.cfg.Kit.node {
		return c.reachJS[m.id]
	}
	return c.reachPy[m.Line]
}

// judgeAll judges the mutants, Jobs at a time.
func (c *campaign) judgeAll(ctx context.Context, ms []mutant, carried map[string]mutation.Result) ([]mutation.Result, error) {
	results := make([]mutation.Result, len(ms))
	var journal *os.File
	if c.cfg.Journal != "" {
		var err error
		if journal, err = os.OpenFile(c.cfg.Journal, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644); err != nil {
			return nil, err
		}
		defer journal.Close()
	}
	next := make(chan int)
	var wg sync.WaitGroup
	var done int
	var mu sync.Mutex
	for range c.cfg.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if r, ok := carried[ms[i].Key]; ok {
					results[i] = r
				} else {
					results[i] = c.judgeOne(ctx, ms[i])
				}
				mu.Lock()
				done++
				r := results[i]
				fmt.Fprintf(c.cfg.Log, "[%d/%d] %s %s: %s %s %s\n", done, len(ms), r.Pos(), r.Describe(), r.Status, r.Scope, strings.Join(r.Failing, ","))
				if journal != nil && ctx.Err() == nil {
					line, _ := json.Marshal(r)
					_, _ = journal.Write(append(line, '\n'))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range ms {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return results, nil
}

// journalHead is what a journal's reader needs besides the verdicts: the
// judges and the setup's CPU time (JOURNAL.head).
type journalHead struct {
	Judges   []string `json:"judges"`
	SetupCPU float64  `json:"setup_cpu_s"`
}

// readJournal is the verdicts a journal holds for the mutants ms, in the
// order they were judged. A verdict of a mutant ms does not have is an
// error, or, with lenient set, left out and named there.
func readJournal(path string, ms []mutant, lenient io.Writer) ([]mutation.Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, m := range ms {
		known[m.Key] = true
	}
	var out []mutation.Result
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r mutation.Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		if !known[r.Key] {
			if lenient == nil {
				return nil, fmt.Errorf("%s:%d: %s is no mutant of the kit as it is now", path, i+1, r.Key)
			}
			fmt.Fprintf(lenient, "left out of the carried sample: %s (its code changed since)\n", r.Key)
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

// judgeOne runs a mutant through the judges until one kills it.
func (c *campaign) judgeOne(ctx context.Context, m mutant) (res mutation.Result) {
	t0 := time.Now()
	res = mutation.Result{Mutant: m.Mutant, Status: mutation.Survived}
	defer func() { res.Millis = time.Since(t0).Milliseconds() }()
	if m.notViable != "" {
		res.Status, res.Detail = mutation.NotViable, m.notViable
		return res
	}
	if !c.reached(m) {
		res.Reached, res.Scope = mutation.ReachedNo, "unreached"
		return res
	}
	res.Reached = mutation.ReachedYes
	dir, env := c.work, ""
	if c.cfg.Kit.node {
		env = "__STRYKER_ACTIVE_MUTANT__=" + m.id
	} else {
		dir = filepath.Join(c.tmp, "m", strconv.Itoa(m.Line)+"-"+strconv.Itoa(m.Col)+"-"+strconv.Itoa(int(time.Now().UnixNano()%1e9)))
		if err := mutantDir(c.cfg.Root, c.cfg.Kit, dir, m); err != nil {
			res.Status, res.Detail = mutation.HarnessError, err.Error()
			return res
		}
		defer os.RemoveAll(dir)
	}
	var cpu time.Duration
	defer func() { res.CPUMillis = cpu.Milliseconds() }()
	for _, j := range c.judges {
		v := c.verdict(ctx, j, dir, env, &cpu)
		res.Unreproduced = append(res.Unreproduced, v.unreproduced...)
		if v.status != mutation.Survived {
			res.Status, res.Scope, res.Failing, res.Detail = v.status, strings.TrimSuffix(j.name, " kernel"), v.failing, v.detail
			return res
		}
	}
	return res
}

type verdict struct {
	status       mutation.Status
	failing      []string // requirement IDs
	detail       string
	unreproduced []string
}

// verdict is one judge's verdict on a mutant: its run, a second run with
// twice the time after a timeout, and the reproduction of a failure.
func (c *campaign) verdict(ctx context.Context, j *judge, dir, env string, cpu *time.Duration) verdict {
	if j.kernel == nil {
		var probs []string
		for attempt := range 2 {
			p, used, err := c.transcript(ctx, dir, env, "", 2*j.timeout)
			*cpu += used
			if err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return verdict{status: mutation.HarnessError, detail: err.Error()}
			}
			if len(p) == 0 {
				if attempt == 1 {
					return verdict{status: mutation.Survived, unreproduced: []string{"transcript"}}
				}
				return verdict{status: mutation.Survived}
			}
			probs = p
		}
		return verdict{status: mutation.Killed, failing: []string{"transcript"}, detail: firstLine(probs[0])}
	}
	run := func(tags string, failFast bool) (*report, error) {
		var last error
		for _, limit := range []time.Duration{j.timeout, 2 * j.timeout} {
			rep, used, err := c.conform(ctx, dir, j.kernel, env, tags, "", failFast, limit)
			*cpu += used
			if err == nil || !errors.Is(err, context.DeadlineExceeded) {
				return rep, err
			}
			last = err
		}
		return nil, last
	}
	rep, err := run(j.tags, true)
	if errors.Is(err, context.DeadlineExceeded) {
		return verdict{status: mutation.TimedOut, detail: fmt.Sprintf("no verdict within %s, twice", j.timeout)}
	}
	if err != nil {
		return verdict{status: mutation.HarnessError, detail: err.Error()}
	}
	failed := rep.failedOf(j.baseline)
	if len(failed) == 0 {
		return verdict{status: mutation.Survived}
	}
	again, err := run(c.tagsOf(failed), false)
	if errors.Is(err, context.DeadlineExceeded) {
		return verdict{status: mutation.TimedOut, detail: "the failing scenarios' second run had no verdict within its timeout, twice"}
	}
	if err != nil {
		return verdict{status: mutation.HarnessError, detail: err.Error()}
	}
	still := again.failedOf(j.baseline)
	if len(still) == 0 {
		return verdict{status: mutation.Survived, unreproduced: rep.requirementsOf(failed)}
	}
	return verdict{status: mutation.Killed, failing: again.requirementsOf(still), detail: again.failureOf(still[0])}
}

// transcript runs the kit's self-test in dir with a transcript and
// validates it; the self-test's own exit status is not a verdict. reach,
// when set, traces the run.
func (c *campaign) transcript(ctx context.Context, dir, env, reach string, limit time.Duration) ([]string, time.Duration, error) {
	k := c.cfg.Kit
	f, err := os.CreateTemp(c.tmp, "transcript-*.jsonl")
	if err != nil {
		return nil, 0, err
	}
	f.Close()
	defer os.Remove(f.Name())
	argv := slices.Clone(k.SelfTest)
	extra := []string{"CONFORM_KIT_TRANSCRIPT=" + f.Name()}
	if env != "" {
		extra = append(extra, env)
	}
	if reach != "" {
		argv, extra = c.traced(argv, reach, extra)
	}
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(cctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(judgeEnv(os.Environ()), extra...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	_ = cmd.Run()
	used := mutation.CPUOf(cmd.ProcessState)
	c.addCPU(used)
	if cctx.Err() != nil && ctx.Err() == nil && reach != "" {
		return nil, used, fmt.Errorf("the unmutated self-test did not end within %s", limit)
	}
	tf, err := os.Open(f.Name())
	if err != nil {
		return nil, used, err
	}
	defer tf.Close()
	res, err := kittranscript.Check(tf)
	if err != nil {
		// A line the mutant left half written (killed at its timeout) is
		// not a schema verdict.
		return nil, used, nil
	}
	return res.Problems, used, nil
}

// traced wraps argv so that the run records what it executes into reach.
func (c *campaign) traced(argv []string, reach string, env []string) ([]string, []string) {
	if c.cfg.Kit.node {
		script := filepath.Join(c.tmp, "nodereach.mjs")
		_ = os.WriteFile(script, nodereach, 0o644)
		u := url.URL{Scheme: "file", Path: script}
		return argv, append(env, "NODE_OPTIONS=--import="+u.String(), "KIT_REACH_DIR="+reach)
	}
	script := filepath.Join(c.tmp, "pyreach.py")
	_ = os.WriteFile(script, pyreach, 0o644)
	return append([]string{argv[0], script, reach, "/" + c.cfg.Kit.Files[0]}, argv[1:]...), env
}

// conform runs conform against kern in dir: the scenarios of tags (all
// when empty), --fail-fast when asked; reach, when set, traces the kernels.
func (c *campaign) conform(ctx context.Context, dir string, kern *Kernel, env, tags, reach string, failFast bool, limit time.Duration) (*report, time.Duration, error) {
	argv := slices.Clone(kern.Argv)
	argv[1] = filepath.Join(dir, argv[1])
	var extra []string
	if env != "" {
		extra = append(extra, env)
	}
	if reach != "" {
		argv, extra = c.traced(argv, reach, extra)
	}
	out, err := os.CreateTemp(c.tmp, "report-*.json")
	if err != nil {
		return nil, 0, err
	}
	out.Close()
	defer os.Remove(out.Name())
	args := []string{"run", "-q", "--features", c.features, "--kernel", strings.Join(argv, " "), "--report-json", out.Name(),
		"-j", strconv.Itoa(c.cfg.RunJobs)}
	if tags != "" {
		args = append(args, "--tags", tags)
	}
	if failFast {
		args = append(args, "--fail-fast")
	}
	for _, e := range extra {
		args = append(args, "--env", e)
	}
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(cctx, c.cfg.Conform, args...)
	cmd.Dir = dir
	cmd.Env = judgeEnv(mutation.RunEnv())
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	runErr := cmd.Run()
	used := mutation.CPUOf(cmd.ProcessState)
	c.addCPU(used)
	if cctx.Err() != nil {
		return nil, used, context.DeadlineExceeded
	}
	b, err := os.ReadFile(out.Name())
	if err != nil || len(b) == 0 {
		return nil, used, fmt.Errorf("conform wrote no report (%v): %s", runErr, firstLine(stderr.String()))
	}
	var r report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, used, err
	}
	return &r, used, nil
}

func (c *campaign) addCPU(d time.Duration) {
	c.mu.Lock()
	c.cpu += d
	c.mu.Unlock()
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// report is the part of conform's JSON report a verdict reads.
type report struct {
	Scenarios []struct {
		File         string   `json:"file"`
		Line         int      `json:"line"`
		Status       string   `json:"status"`
		Requirements []string `json:"requirements"`
		Failure      string   `json:"failure"`
	} `json:"scenarios"`
}

func (r *report) passed() []string {
	var out []string
	for _, s := range r.Scenarios {
		if s.Status == "pass" {
			out = append(out, fmt.Sprintf("%s:%d", s.File, s.Line))
		}
	}
	return out
}

// failedOf are the scenarios of baseline that failed or erred.
func (r *report) failedOf(baseline map[string]bool) []string {
	var out []string
	for _, s := range r.Scenarios {
		id := fmt.Sprintf("%s:%d", s.File, s.Line)
		if (s.Status == "fail" || s.Status == "error") && baseline[id] && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

func (r *report) requirementsOf(scenarios []string) []string {
	var out []string
	for _, s := range r.Scenarios {
		if slices.Contains(scenarios, fmt.Sprintf("%s:%d", s.File, s.Line)) {
			for _, id := range s.Requirements {
				if !slices.Contains(out, id) {
					out = append(out, id)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

func (r *report) failureOf(scenario string) string {
	for _, s := range r.Scenarios {
		if fmt.Sprintf("%s:%d", s.File, s.Line) == scenario {
			return scenario + ": " + firstLine(s.Failure)
		}
	}
	return scenario
}

// judgeEnv is env without PYTHONUNBUFFERED: conform passes the variable on
// to a kernel, and a machine that sets it (this one does) makes a Python
// kit that forgets to flush its output look correct; a kit is judged as
// it runs where nobody set it.
func judgeEnv(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "PYTHONUNBUFFERED=") })
}
