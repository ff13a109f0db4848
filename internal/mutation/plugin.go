package mutation

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentconform/conform/pluginconform/launch"
)

// The plugin judge (issue 30): the same campaign over the reference
// plugins under refplugin, judged by `conform plugin` instead of
// `conform run`. A mutant of a plugin package is compiled into the
// plugin's own main (mutant schemata as for the kernel: CONFORM_MUTANT
// chooses the mutant, handed to the plugin with conform's --env, since a
// plugin is launched with PATH, HOME and TMPDIR only), and the plugin is
// checked by the invocations `make plugin` and `make plugin-ctxmem` use.

// PluginRun is one `conform plugin` invocation that judges a plugin.
type PluginRun struct {
	Category      string   // --category; "" lets conform tell it from the services served
	Args          []string // the plugin's own flags (a legal variant, e.g. -compactor)
	Require       string   // --require
	Effects       bool     // --allow-effects with a fresh scratch folder
	ProcessBacked []string // --process-backed
}

// PluginUnit is one reference plugin binary and the runs that judge it.
type PluginUnit struct {
	Name string      // e.g. refmodel
	Main string      // the main package, e.g. ./refplugin/model/cmd/refmodel
	Owns []string    // the packages it judges first (module-relative)
	Runs []PluginRun // a mutant is killed when any of them fails
	// Conform is the unmutated conform binary; Seeds are the seeds of the
	// generated cases: the first judges every mutant, each further one
	// runs only when the mutant survived the ones before (a survivor is
	// confirmed under another seed).
	Conform string
	Seeds   []uint64
	// Reproduce runs the invocations again after a kill, as the kernel
	// campaign does, and counts the kill only when it comes back. The
	// cases are the same under a fixed seed, so only a timing-sensitive
	// check could differ; off, a kill costs one run instead of two.
	Reproduce bool
}

// PluginUnits are the reference plugins, in the order a shared package's
// survivors go from one importer to the next. The runs are those of make
// plugin and make plugin-ctxmem.
func PluginUnits() []PluginUnit {
	return []PluginUnit{
		{Name: "refmodel", Main: "./refplugin/model/cmd/refmodel",
			Owns: []string{"refplugin/model", "refplugin/model/cmd/refmodel"},
			Runs: []PluginRun{{Require: "all"}}},
		{Name: "refcontext", Main: "./refplugin/cmd/refcontext",
			Owns: []string{"refplugin/refcontext", "refplugin/cmd/refcontext", "refplugin/refkit"},
			Runs: []PluginRun{{Category: "context", Require: "should"}, {Category: "context", Args: []string{"-compactor"}, Require: "all"}}},
		{Name: "refmemory", Main: "./refplugin/cmd/refmemory",
			Owns: []string{"refplugin/refmemory", "refplugin/cmd/refmemory"},
			Runs: []PluginRun{{Category: "memory", Require: "all"}, {Category: "memory", Args: []string{"-ratify"}, Require: "all"}}},
		{Name: "refplugin", Main: "./refplugin/cmd/refplugin",
			Owns: []string{"refplugin", "refplugin/cmd/refplugin"},
			Runs: []PluginRun{{Require: "all", Effects: true, ProcessBacked: []string{"exec"}}}},
	}
}

// pluginOrder maps every package some unit's binary links (deps, by unit
// name, module-relative) to the units that judge it, in turn: its owner
// first, then every other unit that links it, in the order of units. A
// package no unit links (the kill matrices' test helpers) is absent.
func pluginOrder(units []PluginUnit, deps map[string][]string) map[string][]string {
	order := map[string][]string{}
	for _, u := range units {
		for _, p := range u.Owns {
			if slices.Contains(deps[u.Name], p) {
				order[p] = []string{u.Name}
			}
		}
	}
	for _, u := range units {
		for _, p := range deps[u.Name] {
			if !slices.Contains(order[p], u.Name) {
				order[p] = append(order[p], u.Name)
			}
		}
	}
	return order
}

// unitDeps lists the module-relative packages under tree that each unit's
// binary links (go list -deps).
func unitDeps(ctx context.Context, j *judge, units []PluginUnit, tree string) (map[string][]string, error) {
	mod, err := modulePath(j.root)
	if err != nil {
		return nil, err
	}
	deps := map[string][]string{}
	for _, u := range units {
		out, err := j.goCmd(ctx, "list", "-deps", u.Main)
		if err != nil {
			return nil, fmt.Errorf("go list -deps %s: %v: %s", u.Main, err, firstLines(out, 3))
		}
		for _, l := range strings.Fields(out) {
			rel, ok := strings.CutPrefix(l, mod+"/")
			if ok && (rel == tree || strings.HasPrefix(rel, tree+"/")) {
				deps[u.Name] = append(deps[u.Name], rel)
			}
		}
	}
	return deps, nil
}

// RunPlugins judges the mutants of the plugin packages under cfg.Tree:
// each package by the unit that owns it, and its survivors by every other
// unit that links it, in turn (a mutant of shared code is killed when any
// plugin built with it fails). Each unit's pass is a campaign of its own
// (Run, with the unit's main as target and its invocations as the judge);
// the verdicts are merged into one report.
func RunPlugins(ctx context.Context, cfg Config, units []PluginUnit) (*Report, error) {
	cfg = withDefaults(cfg)
	start, cpu0 := cfg.Now(), usedCPU()
	root, err := filepath.Abs(cfg.Root)
	if err != nil {
		return nil, err
	}
	cfg.Root = root
	goTool, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("the go command is needed to build mutants: %w", err)
	}
	tmp, err := os.MkdirTemp("", "conform-mutation-plugins-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	j := &judge{root: root, goTool: goTool, target: "./cmd/conform", tmp: tmp, now: cfg.Now}
	conform := filepath.Join(tmp, "conform")
	if !cfg.FromJournal {
		if out, err := j.goCmd(ctx, "build", "-o", conform, "./cmd/conform"); err != nil {
			return nil, fmt.Errorf("building conform: %v: %s", err, firstLines(out, 3))
		}
	}
	deps, err := unitDeps(ctx, j, units, cfg.Tree)
	if err != nil {
		return nil, err
	}
	order := pluginOrder(units, deps)
	all, err := Discover(root, cfg.Tree)
	if err != nil {
		return nil, err
	}
	var pkgs []Package
	for _, p := range all {
		if len(order[p.Dir]) > 0 && (len(cfg.Packages) == 0 || slices.Contains(cfg.Packages, p.Dir)) {
			pkgs = append(pkgs, p)
		}
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no plugin package under %s among %v", cfg.Tree, cfg.Packages)
	}
	final := map[string]Result{} // by journalKey
	var setup, builds time.Duration
	nbuilds := 0
	for round := 0; ; round++ {
		ran := false
		for _, u := range units {
			var dirs, only []string
			for _, p := range pkgs {
				if round >= len(order[p.Dir]) || order[p.Dir][round] != u.Name {
					continue
				}
				if round == 0 {
					dirs = append(dirs, p.Dir)
					continue
				}
				keys := survivorsOf(final, p.Dir)
				if len(keys) > 0 {
					dirs, only = append(dirs, p.Dir), append(only, keys...)
				}
			}
			if len(dirs) == 0 {
				continue
			}
			ran = true
			c := cfg
			c.Target, c.Packages, c.PerScenario = u.Main, dirs, false
			// An earlier campaign's verdicts are carried into the first
			// pass only: a later pass judges what is still alive, and a
			// carried kill already ended that mutant's passes.
			if round > 0 {
				c.Carry = Carry{}
			}
			// Past the first pass only the survivors so far are judged
			// (a subset of -only's mutants when it was given).
			c.Only = cfg.Only
			if round > 0 {
				c.Only = only
			}
			if cfg.Journal != "" {
				c.Journal = strings.TrimSuffix(cfg.Journal, ".jsonl") + fmt.Sprintf("-%s-%d.jsonl", u.Name, round)
			}
			uu := u
			uu.Conform = conform
			if len(uu.Seeds) == 0 {
				uu.Seeds = []uint64{1}
			}
			c.Plugin = &uu
			if cfg.Log != nil {
				fmt.Fprintf(cfg.Log, "== %s, pass %d: %s\n", u.Name, round+1, strings.Join(dirs, ", "))
			}
			run := Run
			if cfg.FromJournal {
				run = journalReport
			}
			rep, err := run(ctx, c)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", u.Name, err)
			}
			if rep.CPU != nil {
				setup += time.Duration(rep.CPU.Setup * float64(time.Second))
				builds += time.Duration(rep.CPU.Builds * float64(time.Second))
			}
			nbuilds += rep.Builds
			name := u.Name
			merge(final, rep.Mutants, func(r *Result) { r.Plugin = name })
		}
		if !ran {
			break
		}
	}
	_, mutants, _, err := selectMutants(root, cfg.Tree, dirsOf(pkgs), cfg.PerPackage, cfg.Seed)
	if err != nil {
		return nil, err
	}
	results := inOrder(final, mutants)
	cfg.PerScenario = false
	// Only this campaign's packages' classifications can go stale here:
	// one committed list serves every part of the plugin campaign.
	mine := map[string]Classification{}
	for k, c := range cfg.Classifications {
		file, _, _ := strings.Cut(k, "|")
		if slices.Contains(dirsOf(pkgs), filepath.ToSlash(filepath.Dir(file))) {
			mine[k] = c
		}
	}
	cfg.Classifications = mine
	rep := newReport(cfg, pkgs, results, cfg.Now().Sub(start))
	rep.Plugins, rep.FromJournal = true, cfg.FromJournal
	rep.Builds = nbuilds
	if !cfg.FromJournal {
		rep.CPU = &CPUFigures{Setup: setup.Seconds(), Builds: builds.Seconds(), Total: (usedCPU() - cpu0).Seconds()}
	}
	rep.Tool = "conform internal/mutation (go/ast, go build -overlay), judged by conform plugin"
	return rep, nil
}

func dirsOf(pkgs []Package) []string {
	out := make([]string, len(pkgs))
	for i, p := range pkgs {
		out[i] = p.Dir
	}
	return out
}

// survivorsOf are the keys of package dir's mutants that every unit so far
// let through (reached or not): the next unit that links it judges them.
func survivorsOf(final map[string]Result, dir string) []string {
	var keys []string
	for _, r := range final {
		if r.Package == dir && r.Status == Survived {
			keys = append(keys, r.Key)
		}
	}
	slices.Sort(keys)
	return keys
}

// merge takes a later pass's verdicts into final (by journalKey), each
// marked by mark, where better says it replaces the one there.
func merge(final map[string]Result, later []Result, mark func(*Result)) {
	for _, r := range later {
		mark(&r)
		k := journalKey(r.Mutant)
		if old, ok := final[k]; ok && !better(r, old) {
			continue
		}
		final[k] = r
	}
}

// inOrder is the verdicts of final for mutants, in their order.
func inOrder(final map[string]Result, mutants []Mutant) []Result {
	var results []Result
	for _, m := range mutants {
		if r, ok := final[journalKey(m)]; ok {
			results = append(results, r)
		}
	}
	return results
}

// better reports whether verdict r of a later unit replaces old: a kill
// replaces a survivor, and a survivor some plugin reached replaces one
// no plugin had reached.
func better(r, old Result) bool {
	switch {
	case old.Status.IsKill() || old.Status == NotViable:
		return false
	case r.Status.IsKill():
		return true
	case r.Status == Survived && old.Status == Survived:
		return old.Reached == ReachedNo && r.Reached != ReachedNo
	case old.Status == HarnessError:
		return r.Status != HarnessError
	}
	return false
}

// pluginRunExe runs the unit's invocations against plugin binary x.bin
// (its schema switch, if any, in x.env), each with the first seed, stopping
// at the first that fails; when all pass, they run again with each further
// seed. The tags of a kernel run do not apply: a plugin has no scenarios,
// so a kill is reproduced by running the same invocations again.
func (u *PluginUnit) runExe(ctx context.Context, j *judge, x exe) verdict {
	start := j.now()
	var v verdict
	for _, seed := range u.Seeds {
		for i, pr := range u.Runs {
			v = u.runOne(ctx, j, x, pr, seed, i)
			if v.status == HarnessError {
				// A plugin that could not be launched or configured at
				// all (conform's exit status 2) is a kill only when it
				// fails so again: a loaded machine may miss a start
				// timeout once.
				if v = u.runOne(ctx, j, x, pr, seed, i); v.status == HarnessError {
					v.status = Killed
				}
			}
			if v.status != Survived {
				v.took = j.now().Sub(start)
				return v
			}
		}
	}
	v.took = j.now().Sub(start)
	return v
}

// pluginArgs is the conform plugin command line of one invocation.
func (u *PluginUnit) pluginArgs(bin string, pr PluginRun, seed uint64, report, scratch string, env []string) []string {
	cmdline := strings.Join(append([]string{bin}, pr.Args...), " ")
	args := []string{"plugin", "-q", "--plugin", cmdline, "--require", pr.Require,
		"--seed", strconv.FormatUint(seed, 10), "--report-json", report}
	if pr.Category != "" {
		args = append(args, "--category", pr.Category)
	}
	if pr.Effects {
		args = append(args, "--allow-effects", scratch)
	}
	if len(pr.ProcessBacked) > 0 {
		args = append(args, "--process-backed", strings.Join(pr.ProcessBacked, ","))
	}
	for _, e := range env {
		args = append(args, "--env", e)
	}
	return args
}

// runOne runs invocation i once; one that times out runs once more with
// twice the time, and that run's verdict counts (judge.runExe).
func (u *PluginUnit) runOne(ctx context.Context, j *judge, x exe, pr PluginRun, seed uint64, i int) verdict {
	v := u.runLimited(ctx, j, x, pr, seed, i, j.timeout)
	if v.status != TimedOut || ctx.Err() != nil {
		return v
	}
	first := v.took
	v = u.runLimited(ctx, j, x, pr, seed, i, 2*j.timeout)
	j.tally.timeoutRerun(v.status != TimedOut)
	v.took += first
	return v
}

func (u *PluginUnit) runLimited(ctx context.Context, j *judge, x exe, pr PluginRun, seed uint64, i int, limit time.Duration) verdict {
	start := j.now()
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	rep := filepath.Join(x.dir, fmt.Sprintf("plugin-%d.json", i))
	_ = os.Remove(rep)
	scratch := filepath.Join(x.dir, "scratch")
	if err := os.RemoveAll(scratch); err != nil {
		return verdict{status: HarnessError, detail: err.Error()}
	}
	cmd := exec.CommandContext(ctx, u.Conform, u.pluginArgs(x.bin, pr, seed, rep, scratch, x.env)...)
	cmd.Dir = x.dir
	// conform plugin kills the plugin's process group on its way out, but
	// not when it is itself killed at the timeout: the plugin runs in a
	// process group of its own (launch.ownGroup), so it would be left
	// running. The timeout therefore kills the groups of conform's
	// descendants too. WaitDelay bounds a plugin that keeps conform's
	// pipes open.
	cmd.Cancel = func() error {
		pids, _ := launch.Descendants(cmd.Process.Pid)
		for _, pid := range pids {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		return cmd.Process.Kill()
	}
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	hog, _, err := runWatched(cmd, x.cpu, 0)
	v := verdict{took: j.now().Sub(start)}
	var exit *exec.ExitError
	what := fmt.Sprintf("%s (seed %d)", strings.TrimSpace(pr.Category+" "+strings.Join(pr.Args, " ")), seed)
	switch {
	case hog:
		v.status, v.detail = Crashed, fmt.Sprintf("used more than %d MiB of memory", memoryLimit>>20)
	case ctx.Err() == context.DeadlineExceeded:
		v.status, v.detail = TimedOut, fmt.Sprintf("no verdict within %s: %s", limit, what)
	case err == nil || errors.As(err, &exit) && exit.ExitCode() == 1:
		// The report is the verdict, as for kernels: any requirement
		// that fails or errs, whatever its level.
		v.failing, _ = failures(rep)
		v.status = Survived
		if err != nil || len(v.failing) > 0 {
			v.status, v.detail = Killed, what
		}
	default:
		// Exit status 2: the plugin could not be launched or configured
		// (its handshake, a crash before serving, Configure refused).
		v.status, v.failing = HarnessError, failingIDs(rep)
		v.detail = fmt.Sprintf("%s: %v: %s", what, err, firstLines(stderr.String(), 2))
		if isPanic(stderr.String()) {
			v.status, v.detail = Crashed, what+": "+panicLine(stderr.String())
		}
	}
	return v
}

// measurePluginReach builds the unit's main with coverage of tree and runs
// every invocation under every seed once against it (GOCOVERDIR handed to
// the plugin with --env). Reach is per statement over the whole check: a
// plugin has no scenarios, so there is no per-scenario reach. A plugin
// process that is killed instead of shut down writes no counters, so reach
// can only be under-measured by a check that kills the plugin; the
// reference plugins are shut down by go-plugin's graceful Kill.
func measurePluginReach(ctx context.Context, j *judge, u *PluginUnit, tree string) (*reach, error) {
	dir := filepath.Join(j.tmp, "coverage")
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "plugin")
	if out, err := j.goCmd(ctx, "build", "-cover", "-coverpkg=./"+tree+"/...", "-o", bin, u.Main); err != nil {
		return nil, fmt.Errorf("coverage build: %v: %s", err, firstLines(out, 3))
	}
	x := exe{bin: bin, dir: dir, env: []string{"GOCOVERDIR=" + data}}
	for _, seed := range u.Seeds {
		for i, pr := range u.Runs {
			if v := u.runOne(ctx, j, x, pr, seed, i); v.status != Survived {
				return nil, fmt.Errorf("coverage run of %s: %s %v %s", u.Name, v.status, v.failing, v.detail)
			}
		}
	}
	return j.coverage(ctx, dir, data)
}

// journalReport is a pass of RunPlugins judged by nothing: the verdicts
// are those its journal holds (a campaign cut short, or run in parts, is
// reported without setting every unit up again). A mutant the journal has
// no verdict for is left out, and the log says how many.
func journalReport(_ context.Context, c Config) (*Report, error) {
	c.Resume = true
	done, err := loadJournal(c)
	if err != nil {
		return nil, err
	}
	_, ms, _, err := selectMutants(c.Root, c.Tree, c.Packages, c.PerPackage, c.Seed)
	if err != nil {
		return nil, err
	}
	rep := &Report{}
	missing := 0
	for _, m := range ms {
		if len(c.Only) > 0 && !picked(m, c.Only) {
			continue
		}
		if r, ok := done[journalKey(m)]; ok {
			// The journal is written before the campaign notes reach;
			// a mutant judged without a run was not reached.
			if r.Scope == "unreached" {
				r.Reached = ReachedNo
			}
			rep.Mutants = append(rep.Mutants, r)
		} else {
			missing++
		}
	}
	if c.Log != nil && missing > 0 {
		fmt.Fprintf(c.Log, "%d mutants have no verdict in %s: left out\n", missing, c.Journal)
	}
	return rep, nil
}
