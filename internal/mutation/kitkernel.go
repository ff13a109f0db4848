package mutation

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Kernels built on the mutated tree (issue 29). The reference kernel runs
// only kernelkit's wire layer, so most of the kit — the Session and Turn
// helpers, Dispatch, Charge — is code no scenario executes against the
// embedded kernel: 201 of its 228 survivors were not reached. A kernel an
// outside author would build on the kit (examples/kitloop) runs it. Such a
// kernel does not pass the whole suite (it has no retries, no doom-loop
// detector, no policy), so it is judged by baseline difference: a mutant
// is judged only by the scenarios the unmutated kernel passes, both alone
// (its coverage run) and in a run of the whole suite. A scenario it fails
// anyway could never show the mutant, and one it fails only sometimes
// would be a kill the mutant did not earn.

// KernelUnit is a kernel main that links the mutated tree, judged by
// `conform run --kernel` against the built main, mutant schemata and
// coverage counters handed over with conform's --env (a subprocess kernel
// gets a minimal environment).
type KernelUnit struct {
	Name string // e.g. kitloop
	Main string // the main package, e.g. ./examples/kitloop
	// Conform is the unmutated conform binary that runs the suite
	// (RunKernels builds it).
	Conform string
}

// KitKernels are the kernels that judge kernelkit after the embedded
// kernel: its survivors go to each in turn.
func KitKernels() []KernelUnit {
	return []KernelUnit{{Name: "kitloop", Main: "./examples/kitloop"}}
}

// command is the program and arguments of a conform run of args against
// bin: bin itself for the embedded kernel; for a kernel unit, conform with
// bin as --kernel and env handed to the kernel.
func (j *judge) command(bin string, args, env []string) (string, []string) {
	if j.kernel == nil {
		return bin, args
	}
	args = append(slices.Clone(args), "--kernel", bin)
	for _, e := range env {
		args = append(args, "--env", e)
	}
	return j.kernel.Conform, args
}

// kernelBaseline runs the whole suite, from the tagged copy of the
// features, against the unmutated kernel of a kernel unit, and takes every
// scenario it fails, or failed alone in its coverage run, out of reach:
// the mutants are judged by the others only.
func kernelBaseline(ctx context.Context, j *judge, cov *reach) (time.Duration, []int, error) {
	dir := filepath.Join(j.tmp, "baseline")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, nil, err
	}
	bin, err := j.build(ctx, dir, nil, nil)
	if err != nil {
		return 0, nil, fmt.Errorf("the unmutated kernel does not build: %w", err)
	}
	v := j.runExe(ctx, exe{bin: bin, dir: dir, setup: true, features: cov.features}, "", false)
	switch v.status {
	case Survived, Killed:
	default:
		return 0, nil, fmt.Errorf("the unmutated kernel's run of the suite ended %s: %s", v.status, v.detail)
	}
	failed := map[string]bool{}
	for _, t := range v.units {
		failed[t] = true
	}
	var out []int
	for u, unit := range cov.units {
		if failed[unit.Tag] || cov.failed[u] {
			out = append(out, u)
		}
	}
	cov.drop(out)
	return v.took, out, nil
}

// drop takes scenarios us out of reach: no block counts them, a block only
// they executed is not reached, and they have no time of their own.
func (r *reach) drop(us []int) {
	for file, blocks := range r.blocks {
		for i := range blocks {
			b := &blocks[i]
			b.units = slices.DeleteFunc(b.units, func(u int) bool { return slices.Contains(us, u) })
			if r.units != nil {
				b.hit = len(b.units) > 0
			}
		}
		r.blocks[file] = blocks
	}
	for _, u := range us {
		r.took[u], r.cpu[u] = 0, 0
	}
}

// RunKernels judges the mutants of cfg.Tree as Run does, against the
// embedded kernel, then judges what survived against each kernel unit in
// turn (per-scenario reach measured on its own main): a mutant of the kit
// is killed when any kernel built on it fails a scenario it passes
// unmutated. The verdicts are merged into one report.
func RunKernels(ctx context.Context, cfg Config, units []KernelUnit) (*Report, error) {
	cfg = withDefaults(cfg)
	start, cpu0 := cfg.Now(), usedCPU()
	first, err := Run(ctx, cfg)
	if err != nil {
		return nil, err
	}
	final := map[string]Result{}
	for _, r := range first.Mutants {
		final[journalKey(r.Mutant)] = r
	}
	root, err := filepath.Abs(cfg.Root)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "conform-mutation-kernels-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	conform := filepath.Join(tmp, "conform")
	j := &judge{root: root, goTool: "go", tmp: tmp, now: cfg.Now}
	if out, err := j.goCmd(ctx, "build", "-o", conform, "./cmd/conform"); err != nil {
		return nil, fmt.Errorf("building conform: %v: %s", err, firstLines(out, 3))
	}
	builds, schemaS := first.Builds, first.SchemaBuildS
	cpu := &CPUFigures{}
	cpu.add(first.CPU)
	for _, u := range units {
		var only []string
		for _, r := range final {
			if r.Status == Survived {
				only = append(only, r.Key)
			}
		}
		if len(only) == 0 {
			break
		}
		slices.Sort(only)
		c := cfg
		uu := u
		uu.Conform = conform
		c.Target, c.Kernel, c.Only, c.Carry, c.Serve = u.Main, &uu, only, Carry{}, false
		// The baseline difference is per scenario: without per-scenario
		// reach a kernel's failing scenarios would judge every mutant.
		c.PerScenario, c.Reach = true, true
		if cfg.Journal != "" {
			c.Journal = strings.TrimSuffix(cfg.Journal, ".jsonl") + "-" + u.Name + ".jsonl"
		}
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, "== %s: %d survivors of the embedded kernel\n", u.Name, len(only))
		}
		rep, err := Run(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", u.Name, err)
		}
		builds += rep.Builds
		schemaS += rep.SchemaBuildS
		cpu.add(rep.CPU)
		name := u.Name
		merge(final, rep.Mutants, func(r *Result) { r.Kernel = name })
	}
	pkgs, mutants, _, err := selectMutants(root, cfg.Tree, cfg.Packages, cfg.PerPackage, cfg.Seed)
	if err != nil {
		return nil, err
	}
	rep := newReport(cfg, pkgs, inOrder(final, mutants), cfg.Now().Sub(start))
	rep.Builds, rep.SchemaBuildS = builds, schemaS
	cpu.Total = (usedCPU() - cpu0).Seconds()
	rep.CPU = cpu
	names := make([]string, len(units))
	for i, u := range units {
		names[i] = u.Main
	}
	rep.Kernels = names
	rep.Tool = "conform internal/mutation (go/ast, go build -overlay), judged against the embedded kernel, then against " + strings.Join(names, ", ")
	return rep, nil
}
