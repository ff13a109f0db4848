package mutation

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultRunJobs is cmd/mutate's -run-jobs. With conform's own default (6
// scenarios per core at once) a --fail-fast run that kills a mutant has
// up to eleven other scenarios in flight when it stops, their CPU spent
// for nothing, and the campaign's dozens of runs at once contend for the
// cores: on a seeded sample (-sample 6 -seed 3, 105 mutants) judging took
// 41 CPU s with 4 against 61 with the default (kills 17 against 25 s,
// survivors 20 against 29 s), every verdict the same, the sample no
// slower (187 against 199 s).
const DefaultRunJobs = 4

// Config is one campaign.
type Config struct {
	Root     string   // module root; made absolute
	Tree     string   // module-relative folder whose packages are mutated, default "refkernel"
	Packages []string // only these module-relative folders; empty: every one found
	Target   string   // the program built and run, default "./cmd/conform"
	Jobs     int      // mutants judged at once, default 2
	// Timeout bounds one run of the suite against a mutant; 0 derives it
	// from the unmutated suite's run (timeoutFor).
	Timeout time.Duration
	// Alone builds every mutant on its own, as campaigns did before
	// mutant schemata (schema.go); by default mutants are compiled many to
	// a program and only those a schema cannot hold are built alone.
	Alone bool
	// PerPackage > 0 judges a deterministic sample of that many mutants of
	// each package, chosen with Seed.
	PerPackage int
	Seed       uint64
	// Confirm re-runs every survivor of its package's scenarios against
	// the whole suite, so a mutant is only reported as surviving when no
	// scenario at all notices it.
	Confirm bool
	// Reach measures, with one coverage run of the whole suite, which
	// statements any scenario executes; a mutant of a statement none
	// executes is reported as a survivor not reached, without a build.
	Reach bool
	// PerScenario measures reach per scenario instead (one coverage run
	// of each scenario alone, scenarios.go) and judges each mutant by the
	// scenarios that execute its statement, instead of its package's
	// scenarios followed by the whole suite; implies Reach.
	PerScenario bool
	// Classifications are the reviewed survivors, by key.
	Classifications map[string]Classification
	// Journal, if set, receives every verdict as one JSON line as soon as
	// it is known; Resume takes the verdicts already there instead of
	// judging those mutants again.
	Journal string
	Resume  bool
	// Only, when set, keeps the mutants whose place (file:line or
	// file:line:col) or key is in the list: a check author judges the
	// survivors a new check is meant to kill without the whole campaign.
	Only []string
	// Carry, when its Report is set, takes verdicts from an earlier
	// campaign where the mutated declaration is unchanged (carry.go).
	Carry Carry
	// RunJobs, when set, is the -j of every judged conform run (how many
	// of its scenarios run at once); 0 leaves conform's own default.
	// cmd/mutate passes DefaultRunJobs.
	RunJobs int
	// Serve judges the mutants of a schema program through judging
	// servers (judgeserver.go): one conform process serves many runs.
	Serve bool
	// Plugin, when set, makes the target a reference plugin's main and
	// judges it by conform plugin (plugin.go) instead of conform run;
	// RunPlugins sets it, one unit at a time.
	Plugin *PluginUnit
	// Kernel, when set, makes the target a kernel built on the mutated
	// tree and judges it by conform run --kernel, by the scenarios it
	// passes unmutated (kitkernel.go); RunKernels sets it.
	Kernel *KernelUnit
	// OrderFrom, when set, is an earlier campaign's mutation.json: the
	// mutants it reports timed out are judged at once, by workers of
	// their own beside the Jobs (order.go). No verdict is taken from it.
	OrderFrom string
	// FromJournal (plugin campaigns) judges nothing: the report is made
	// of the verdicts the journals already hold.
	FromJournal bool
	Commit      string           // the commit mutated, recorded in the report
	Log         io.Writer        // progress, one line per mutant; nil: none
	Now         func() time.Time // the clock; nil: time.Now
}

// Result is one judged mutant.
type Result struct {
	Mutant
	Status Status `json:"status"`
	// Failing are the requirements that failed against it: those of the
	// first failing scenario, since the suite runs with --fail-fast (a kill
	// needs one failure, and the rest of the suite would only cost time).
	Failing []string `json:"failing,omitempty"`
	// Scope is what judged it: "package" (the scenarios tagged with its
	// package's requirements), "suite" (the whole suite, after the
	// package's scenarios let it through) or "unreached" (no scenario
	// executes its statement, so nothing was run).
	Scope string `json:"scope,omitempty"`
	// Reached says whether the whole suite executes the mutated statement
	// in the unmutated kernel: "yes", "no", or "" when not measured or
	// outside any statement.
	Reached string `json:"reached,omitempty"`
	Detail  string `json:"detail,omitempty"`
	Millis  int64  `json:"ms"`
	// CPUMillis is the CPU time of its suite runs and, built alone, of
	// its build (schema builds are shared, counted in the report only).
	CPUMillis   int64 `json:"cpu_ms,omitempty"`
	BuildMillis int64 `json:"build_ms,omitempty"`
	// Schema is the schema build (1-based) whose program judged the
	// mutant, 0 when it was built alone.
	Schema int `json:"schema,omitempty"`
	// Unreproduced are requirements that failed once against the mutant
	// but passed when their scenarios ran again: not counted as a kill.
	Unreproduced   []string        `json:"unreproduced,omitempty"`
	Classification *Classification `json:"classification,omitempty"`
	// CarriedFrom is the commit of the campaign whose verdict this is,
	// when it was carried instead of judged (carry.go).
	CarriedFrom string `json:"carried_from,omitempty"`
	// Rechecked is set on a carried kill that was judged again: "agrees"
	// or "disagrees" (then the new verdict is the one reported).
	Rechecked string `json:"rechecked,omitempty"`
	// Plugin is the reference plugin whose check judged it (plugin.go).
	Plugin string `json:"plugin,omitempty"`
	// Kernel is the kernel built on the tree that judged it, when the
	// embedded kernel let it through (kitkernel.go).
	Kernel string `json:"kernel,omitempty"`
	// buildCPU is the part of CPUMillis its own build took.
	buildCPU int64
}

// Run judges every selected mutant and returns the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg = withDefaults(cfg)
	now := cfg.Now
	start, cpu0 := now(), usedCPU()
	root, err := filepath.Abs(cfg.Root)
	if err != nil {
		return nil, err
	}
	pkgs, mutants, sources, err := selectMutants(root, cfg.Tree, cfg.Packages, cfg.PerPackage, cfg.Seed)
	if err != nil {
		return nil, err
	}
	if len(cfg.Only) > 0 {
		mutants = slices.DeleteFunc(mutants, func(m Mutant) bool { return !picked(m, cfg.Only) })
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("the go command is needed to build mutants: %w", err)
	}
	tmp, err := os.MkdirTemp("", "conform-mutation-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	j := &judge{root: root, goTool: goTool, target: cfg.Target, tmp: tmp, timeout: cfg.Timeout, now: now, plugin: cfg.Plugin, kernel: cfg.Kernel}
	if j.timeout <= 0 {
		j.timeout = baselineTimeout
	}
	j.runJobs = cfg.RunJobs
	if cfg.Serve && cfg.Plugin == nil && cfg.Kernel == nil {
		j.servers = &servers{max: cfg.Jobs}
		defer j.servers.close()
	}
	// The unmutated suite runs while reach is measured: both mostly wait
	// (the suite a minute on ER-01's retries), and reach does not need it.
	base := make(chan based, 1)
	if cfg.Kernel == nil {
		go func() {
			took, err := baseline(ctx, j)
			base <- based{took, err}
		}()
	}
	var cov *reach
	switch {
	case cfg.Plugin != nil && cfg.Reach:
		if cov, err = measurePluginReach(ctx, j, cfg.Plugin, cfg.Tree); err != nil {
			return nil, err
		}
	case cfg.Plugin != nil:
	case cfg.PerScenario:
		// Many scenario runs at once: each mostly waits on its kernel.
		if cov, err = measureScenarioReach(ctx, j, cfg.Tree, 2*cfg.Jobs); err != nil {
			return nil, fmt.Errorf("per-scenario reach: %w", err)
		}
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "per-scenario reach: %d scenarios run alone on a coverage build\n", len(cov.units))
		}
	case cfg.Reach:
		if cov, err = measureReach(ctx, j, cfg.Tree); err != nil {
			return nil, err
		}
	}
	if cfg.Kernel != nil {
		// Which scenarios judge the mutants depends on the baseline
		// here, so the judging waits for it.
		took, failing, err := kernelBaseline(ctx, j, cov)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cfg.Kernel.Name, err)
		}
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "%s: %d of %d scenarios fail or do not run against the unmutated kernel: they judge no mutant\n", cfg.Kernel.Name, len(failing), len(cov.units))
		}
		base <- based{took: took}
	}
	var took time.Duration
	logBase := func(b based) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "unmutated suite: %.1fs (%.1fs from its scenarios' own times); per-run timeout %s, for a run of the scenarios reaching a mutant from their own times\n",
				b.took.Seconds(), took.Seconds(), j.timeout)
		}
	}
	// baseEnded receives the unmutated suite's run when the judging did
	// not wait for it; it is awaited before the report.
	var baseEnded <-chan based
	if all := cov.all(); len(all) > 0 {
		// The suite ran beside the coverage runs, so its own time says
		// more about that load than about the suite: the scenarios' times
		// say how long any selection of them takes (a package's, the
		// whole suite), as for the runs of the scenarios reaching a mutant.
		longest, rest := cov.nominal(all, runtime.NumCPU())
		took = longest + rest
		if cfg.Timeout <= 0 && cfg.Plugin == nil {
			j.timeout = runTimeout(longest, rest, cfg.Jobs)
		}
		// Nothing the judging needs comes from the suite's own run then,
		// only its verdict, so the judging does not wait for it (the
		// setup of a campaign from scratch took 79 s instead of 100): a
		// failing suite cancels the campaign, which then reports that.
		var stop context.CancelCauseFunc
		ctx, baseEnded, stop = beside(ctx, base)
		defer stop(nil)
	} else {
		b := <-base
		if b.err != nil {
			return nil, b.err
		}
		took = b.took
		if cfg.Timeout <= 0 {
			j.timeout = timeoutFor(took, cfg.Jobs)
		}
		logBase(b)
	}
	setupCPU := usedCPU() - cpu0
	if cfg.Log != nil {
		fmt.Fprintf(cfg.Log, "setup took %.0f CPU s in %.0f s\n", setupCPU.Seconds(), now().Sub(start).Seconds())
	}
	done, err := loadJournal(cfg)
	if err != nil {
		return nil, err
	}
	journal, err := openJournal(cfg)
	if err != nil {
		return nil, err
	}
	defer journal.close()

	var carry *carried
	if cfg.Carry.Report != "" {
		if carry, err = loadCarry(root, cfg.Carry); err != nil {
			return nil, err
		}
	}
	pre := make([]Result, len(mutants))
	for i, m := range mutants {
		if r, ok := carry.take(m, sources[m.File], cfg.Classifications); ok {
			pre[i] = r
		}
	}
	recheck := recheckSample(pre, cfg.Carry.Recheck, cfg.Seed)

	tags, reqs := map[string]string{}, map[string][]string{}
	for _, p := range pkgs {
		tags[p.Dir], reqs[p.Dir] = p.Tags(), p.Requirements
	}
	decl, err := declarationUses(ctx, j, cfg, cov, mutants, pre, sources)
	if err != nil {
		return nil, fmt.Errorf("uses of package-level declarations: %w", err)
	}
	plan := &schemaPlan{}
	if !cfg.Alone {
		var ids, unreached []int
		for i, m := range mutants {
			_, ok := done[journalKey(m)]
			fresh := pre[i].CarriedFrom == "" && !ok
			switch {
			case recheck[i] && !ok || fresh && cov.at(m.File, m.Line, m.Col) != ReachedNo:
				ids = append(ids, i)
			case fresh:
				unreached = append(unreached, i)
			}
		}
		if plan, err = planSchemata(ctx, j, mutants, ids, unreached, sources, decl); err != nil {
			return nil, fmt.Errorf("mutant schemata: %w", err)
		}
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "%d of %d mutants to judge in %d schema builds, the others built alone\n",
				len(plan.of), len(ids), len(plan.builds))
		}
	}
	scopes := make([]judgeScope, len(mutants))
	for i, m := range mutants {
		sc := judgeScope{tags: tags[m.Package], confirm: cfg.Confirm, expect: took}
		us := cov.reaching(m.File, m.Line, m.Col, sources[m.File])
		if len(us) == 0 && m.Func == "" && decl != nil {
			us = cov.reachingUses(decl, m, sources)
		}
		if len(us) == 0 && cfg.Kernel != nil {
			// No package or whole-suite scope for a kernel unit: its
			// failing scenarios would kill every mutant.
			us = cov.all()
		}
		if len(us) > 0 {
			sc.reaching, sc.features = cov.tagsOf(us), cov.featuresOf(us)
			if own, others := cov.split(us, reqs[m.Package]); len(own) > 0 && len(others) > 0 {
				sc.reaching, sc.features = cov.tagsOf(own), cov.featuresOf(own)
				sc.then, sc.thenFeatures = cov.tagsOf(others), cov.featuresOf(others)
			}
			longest, rest := cov.nominal(us, runtime.NumCPU())
			sc.expect = longest + rest
			if cfg.Timeout <= 0 && cfg.Plugin == nil {
				sc.timeout = runTimeout(longest, rest, cfg.Jobs)
				sc.cpuLimit = cpuBudget(cov.cpuOf(us))
			}
		}
		scopes[i] = sc
	}
	judgeAt := func(dir string, i int) Result {
		m := mutants[i]
		if b := plan.of[i]; b != nil {
			if bin := b.binary(ctx, j, sources, i); bin != "" {
				return judgeSchema(ctx, j, dir, bin, b.n, i, m, scopes[i], !plan.atInit[i])
			}
		}
		return judgeOne(ctx, j, dir, m, sources[m.File], scopes[i])
	}
	results := make([]Result, len(mutants))
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		finished int
		next     = make(chan int)
	)
	// Longest first: a mutant reached by ER-01 runs a minute whatever it
	// does (three in four of the reached ones), so those start while the
	// quick ones fill the cores, instead of a minute-long tail at the end.
	order := make([]int, len(mutants))
	for i := range order {
		order[i] = i
	}
	longestFirst(order, scopes, func(i int) bool {
		m := mutants[i]
		return plan.of[i] == nil && !plan.uncompilable[i] && pre[i].CarriedFrom == "" && cov.at(m.File, m.Line, m.Col) != ReachedNo
	})
	hung, order := splitHung(order, mutants, timedOutBefore(cfg.OrderFrom))
	waiting, order := splitWaiting(order, scopes)
	nextHung, nextWaiting := make(chan int), make(chan int)
	// judgeNext judges mutant i in worker folder dir, or takes its verdict
	// from the journal or the carried report.
	judgeNext := func(dir string, i int) {
		m := mutants[i]
		reached := cov.at(m.File, m.Line, m.Col)
		r, ok := done[journalKey(m)]
		switch {
		case pre[i].CarriedFrom != "" && !recheck[i]:
			r = pre[i]
			if !ok { // the journal holds every verdict, so -from-journal can report it
				journal.write(r)
			}
		case recheck[i]:
			if !ok { // a resumed campaign keeps the recheck's journaled verdict
				if r = judgeAt(dir, i); ctx.Err() != nil {
					return
				}
			}
			r.CarriedFrom, r.Rechecked = pre[i].CarriedFrom, "agrees"
			if r.Status.IsKill() != pre[i].Status.IsKill() {
				r.Rechecked = "disagrees"
			}
			if !ok {
				journal.write(r)
			}
		case ok:
		case reached == ReachedNo && plan.uncompilable[i]:
			r = Result{Mutant: m, Status: NotViable, Scope: "unreached", Detail: "does not type-check (go/types); nothing executes it, so it was not built"}
			journal.write(r)
		case plan.uncompilable[i]:
			r = Result{Mutant: m, Status: NotViable, Detail: "does not type-check (go/types), so it was not built"}
			journal.write(r)
		case reached == ReachedNo:
			r = Result{Mutant: m, Status: Survived, Scope: "unreached"}
			journal.write(r)
		default:
			r = judgeAt(dir, i)
			if ctx.Err() != nil {
				// Interrupted, or the unmutated suite failed: what the
				// run says is not the mutant's, and a resumed campaign
				// must judge it again.
				return
			}
			journal.write(r)
		}
		r.Reached = reached
		results[i] = r
		mu.Lock()
		finished++
		progress(cfg.Log, finished, len(mutants), r, now().Sub(start))
		if cfg.Log != nil && finished%50 == 0 {
			fmt.Fprintf(cfg.Log, "%d mutants judged, %.0f CPU s so far, at %.0f s\n", finished, (usedCPU() - cpu0).Seconds(), now().Sub(start).Seconds())
		}
		mu.Unlock()
	}
	for w := range cfg.Jobs + waitJobs(len(waiting), cfg.Jobs) + hungJobs(len(hung), cfg.Jobs) {
		// A campaign's own workers go on to the waiting mutants once
		// theirs are done: at the end only those are left, and the cores
		// idled while their workers waited (45% idle in a campaign).
		queues := []chan int{next, nextWaiting}
		switch {
		case w >= cfg.Jobs+waitJobs(len(waiting), cfg.Jobs):
			queues = []chan int{nextHung}
		case w >= cfg.Jobs:
			queues = []chan int{nextWaiting}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir := filepath.Join(tmp, fmt.Sprintf("w%d", w))
			for _, next := range queues {
				for i := range next {
					judgeNext(dir, i)
				}
			}
		}()
	}
	go feed(ctx, nextHung, hung)
	go feed(ctx, nextWaiting, waiting)
	feed(ctx, next, order)
	wg.Wait()
	if baseEnded != nil {
		b := <-baseEnded
		if b.err != nil {
			return nil, b.err
		}
		logBase(b)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("campaign interrupted: %w", err)
	}
	if err := journal.err; err != nil {
		return nil, fmt.Errorf("journal %s: %w", cfg.Journal, err)
	}
	rep := newReport(cfg, pkgs, results, now().Sub(start))
	rep.Builds = int(j.builds.Load())
	rep.CPU = &CPUFigures{Setup: setupCPU.Seconds(), Builds: time.Duration(j.buildCPU.Load()).Seconds(), Total: (usedCPU() - cpu0).Seconds()}
	rep.CPU.split(&j.tally, results)
	for _, b := range plan.builds {
		if b.bin != "" {
			rep.SchemaBuildS += b.took.Seconds()
		}
	}
	return rep, nil
}

// feed hands the mutants of order to the workers reading next, then closes
// it; it stops early when ctx ends.
func feed(ctx context.Context, next chan<- int, order []int) {
	defer close(next)
	for _, i := range order {
		select {
		case next <- i:
		case <-ctx.Done():
			return
		}
	}
}

// List returns the mutants a campaign over root's packages under tree
// (default refkernel) would judge, in order, without judging them.
func List(root, tree string, packages []string, perPackage int, seed uint64) ([]Mutant, error) {
	if tree == "" {
		tree = "refkernel"
	}
	_, ms, _, err := selectMutants(root, tree, packages, perPackage, seed)
	return ms, err
}

func selectMutants(root, tree string, packages []string, perPackage int, seed uint64) ([]Package, []Mutant, map[string][]byte, error) {
	pkgs, err := Discover(root, tree)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(packages) > 0 {
		pkgs = slices.DeleteFunc(pkgs, func(p Package) bool { return !slices.Contains(packages, p.Dir) })
		if len(pkgs) != len(packages) {
			return nil, nil, nil, fmt.Errorf("some of the packages %v are not under %s", packages, tree)
		}
	}
	sources := map[string][]byte{}
	var mutants []Mutant
	for _, p := range pkgs {
		var all []Mutant
		for _, f := range p.Files {
			src, err := os.ReadFile(filepath.Join(root, f))
			if err != nil {
				return nil, nil, nil, err
			}
			sources[f] = src
			ms, err := Enumerate(p.Dir, f, src)
			if err != nil {
				return nil, nil, nil, err
			}
			all = append(all, ms...)
		}
		mutants = append(mutants, Sample(all, perPackage, seed)...)
	}
	return pkgs, mutants, sources, nil
}

func withDefaults(cfg Config) Config {
	if cfg.Tree == "" {
		cfg.Tree = "refkernel"
	}
	if cfg.Target == "" {
		cfg.Target = "./cmd/conform"
	}
	if cfg.Jobs <= 0 {
		cfg.Jobs = 2
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Classifications == nil {
		cfg.Classifications = map[string]Classification{}
	}
	return cfg
}

// based is how the unmutated suite's run ended.
type based struct {
	took time.Duration
	err  error
}

// beside lets the judging go on while the unmutated suite runs: the
// returned context ends when base reports a failure (with it as the
// cause), and ended receives base's report once it is there.
func beside(ctx context.Context, base <-chan based) (_ context.Context, ended <-chan based, stop context.CancelCauseFunc) {
	ctx, stop = context.WithCancelCause(ctx)
	out := make(chan based, 1)
	go func() {
		var b based
		select {
		case b = <-base:
		case <-ctx.Done():
			b = based{err: context.Cause(ctx)}
		}
		if b.err != nil {
			stop(b.err)
		}
		out <- b
	}()
	return ctx, out, stop
}

// baseline builds the unmutated program and runs the whole suite: a kill
// only means something if the original passes every requirement.
func baseline(ctx context.Context, j *judge) (time.Duration, error) {
	dir := filepath.Join(j.tmp, "baseline")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	bin, err := j.build(ctx, dir, nil, nil)
	if err != nil {
		return 0, fmt.Errorf("the unmutated program does not build: %w", err)
	}
	v := j.runExe(ctx, exe{bin: bin, dir: filepath.Dir(bin), setup: true}, "", true)
	if v.status != Survived {
		return 0, fmt.Errorf("the unmutated kernel does not pass the suite (%s %v %s): no mutant verdict would mean anything", v.status, v.failing, v.detail)
	}
	return v.took, nil
}

// judgeScope is what judges a mutant: the scenarios that execute its
// statement (reaching, from the tagged copy of the features), or, when
// that is not known, its package's scenarios (tags) and then, with
// confirm, the whole suite.
type judgeScope struct {
	tags     string
	confirm  bool
	reaching string
	// then, when set, are the other reaching scenarios, run only when
	// the mutant survives those of reaching (reach.split).
	then string
	// features and thenFeatures hold the feature files of the scenarios
	// of reaching and then (reach.featuresOf).
	features, thenFeatures string
	// timeout, when set, bounds a run of the reaching scenarios instead of
	// the campaign's per-run timeout (runTimeout).
	timeout time.Duration
	// cpuLimit, when set, is the CPU time a run of the reaching scenarios
	// may use (cpuBudget).
	cpuLimit time.Duration
	// expect is how long the mutant's runs take against the unmutated
	// kernel, to judge the longest first.
	expect time.Duration
}

func judgeOne(ctx context.Context, j *judge, dir string, m Mutant, src []byte, sc judgeScope) (r Result) {
	start := j.now()
	r.Mutant = m
	defer func() { r.Millis = j.now().Sub(start).Milliseconds() }()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.Status, r.Detail = HarnessError, err.Error()
		return r
	}
	bin, err := j.buildCounting(ctx, dir, &m, src, &r.buildCPU)
	r.CPUMillis += r.buildCPU
	var be *buildError
	switch {
	case errors.As(err, &be):
		r.Status, r.Detail = NotViable, firstLines(be.out, 2)
		return r
	case err != nil:
		r.Status, r.Detail = HarnessError, err.Error()
		return r
	}
	r.BuildMillis = j.now().Sub(start).Milliseconds()
	judgeBuilt(ctx, j, exe{bin: bin, dir: dir, cpu: &r.CPUMillis}, sc, &r)
	return r
}

// judgeSchema judges mutant id in the program of schema build n, with its
// switch on; on a judging server only when serve is set (a mutant switched
// when the program starts needs a process of its own).
func judgeSchema(ctx context.Context, j *judge, dir, bin string, n, id int, m Mutant, sc judgeScope, serve bool) (r Result) {
	start := j.now()
	r.Mutant, r.Schema = m, n
	defer func() { r.Millis = j.now().Sub(start).Milliseconds() }()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.Status, r.Detail = HarnessError, err.Error()
		return r
	}
	judgeBuilt(ctx, j, exe{bin: bin, dir: dir, env: []string{fmt.Sprintf("%s=%d", mutantEnv, id)}, cpu: &r.CPUMillis, serve: serve, mutant: id}, sc, &r)
	return r
}

// judgeBuilt runs the suite against a built mutant: the scenarios that
// execute its statement when they are known (scenarios.go), else its
// package's scenarios, then, if it survives them, the whole suite.
func judgeBuilt(ctx context.Context, j *judge, x exe, sc judgeScope, r *Result) {
	if sc.reaching != "" {
		x.features, x.timeout, x.cpuLimit = sc.features, sc.timeout, sc.cpuLimit
		v := j.scope(ctx, x, sc.reaching, r)
		if v.status == Survived && sc.then != "" {
			x.features = sc.thenFeatures
			v = j.scope(ctx, x, sc.then, r)
		}
		r.Scope = "reaching"
		r.Status, r.Failing, r.Detail = v.status, v.failing, v.detail
		return
	}
	tags, confirm := sc.tags, sc.confirm
	v := j.scope(ctx, x, tags, r)
	r.Scope = "package"
	if v.status == Survived && tags != "" && confirm {
		v = j.scope(ctx, x, "", r)
		r.Scope = "suite"
	}
	r.Status, r.Failing, r.Detail = v.status, v.failing, v.detail
}

// scope judges the mutant by the scenarios of tags ("" : all). The run
// stops at its first failure; when that failure does not come back on its
// own scenarios it may have stopped the run before a real one (a flaky
// scenario on a loaded machine, first of twelve at once), so the scope then
// runs again to the end and every failure of that run is checked alike.
func (j *judge) scope(ctx context.Context, x exe, tags string, r *Result) verdict {
	n := len(r.Unreproduced)
	v := j.reproducedExe(ctx, x, j.runExe(ctx, x, tags, true), r)
	if v.status == Survived && len(r.Unreproduced) > n {
		v = j.reproducedExe(ctx, x, j.runExe(ctx, x, tags, false), r)
	}
	return v
}

// reproduced checks a kill before it counts: the scenarios of the failing
// requirements run again, and only a failure that comes back is a kill. A
// timing-sensitive scenario that failed once on a loaded machine would
// otherwise count as a kill the mutant did not earn. A failure that does
// not come back is recorded in r.Unreproduced and the run counts as passed.
func (j *judge) reproduced(ctx context.Context, bin string, v verdict, r *Result) verdict {
	return j.reproducedExe(ctx, exe{bin: bin, dir: filepath.Dir(bin)}, v, r)
}

func (j *judge) reproducedExe(ctx context.Context, x exe, v verdict, r *Result) verdict {
	if v.status != Killed || len(v.failing) == 0 || j.plugin != nil && !j.plugin.Reproduce {
		return v
	}
	// With a tagged copy of the features the failing scenarios themselves
	// run again (the same ones, cheaper than every scenario of their
	// requirements); the kill is still the requirements they failed.
	tags := "@" + strings.Join(v.failing, ",@")
	if x.features != "" && len(v.units) > 0 {
		tags = strings.Join(v.units, ",")
	}
	again := j.runExe(ctx, x, tags, true)
	if again.status != Survived {
		return v
	}
	r.Unreproduced = append(r.Unreproduced, v.failing...)
	return verdict{status: Survived}
}

// Sample picks n mutants of one package, the same ones for the same seed
// and the same code, in source order; n <= 0 keeps them all.
func Sample(ms []Mutant, n int, seed uint64) []Mutant {
	if n <= 0 || n >= len(ms) {
		return ms
	}
	h := fnv.New64a()
	h.Write([]byte(ms[0].Package))
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	idx := rng.Perm(len(ms))[:n]
	slices.Sort(idx)
	out := make([]Mutant, n)
	for i, k := range idx {
		out[i] = ms[k]
	}
	return out
}

func progress(w io.Writer, n, total int, r Result, at time.Duration) {
	if w == nil {
		return
	}
	extra := ""
	if len(r.Failing) > 0 {
		extra = " (" + strings.Join(r.Failing, ",") + ")"
	}
	fmt.Fprintf(w, "[%d/%d] %-10s %s %s%s %.1fs (build %.1fs) at %.0fs\n", n, total, r.Status, r.Pos(), r.Describe(), extra,
		float64(r.Millis)/1000, float64(r.BuildMillis)/1000, at.Seconds())
}

// picked reports whether m's place or key is one of only.
func picked(m Mutant, only []string) bool {
	line := fmt.Sprintf("%s:%d", m.File, m.Line)
	for _, o := range only {
		if o == m.Key || o == line || o == fmt.Sprintf("%s:%d", line, m.Col) {
			return true
		}
	}
	return false
}
