// Command mutate runs the source-level mutation campaign over the reference
// kernel (package internal/mutation) and writes reports/mutation.json and
// reports/mutation.md. `make mutation` runs it. With -tree refplugin the
// mutants are those of the reference plugins, judged by conform plugin
// (internal/mutation/plugin.go); `make mutation-plugins` runs that.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentconform/conform/internal/mutation"
)

func main() {
	var (
		cfg     mutation.Config
		out     string
		list    string
		pkgs    string
		only    string
		quiet   bool
		enum    bool
		strict  bool
		seed    uint64
		timeout time.Duration
		seeds   string
		repro   bool
		kits    bool
	)
	flag.StringVar(&cfg.Root, "root", ".", "module root")
	// A judged mutant's run mostly waits on its kernel and timers: three in
	// four of the reached mutants are reached by ER-01's minute of retries,
	// which costs about 1.5 CPU s, so a run of them keeps a core busy a
	// tenth of its time or less; eight per core keep the cores busy (a run
	// takes about 100 MiB).
	flag.IntVar(&cfg.Jobs, "j", 8*runtime.NumCPU(), "mutants judged at once")
	flag.DurationVar(&timeout, "timeout", 0, "time one suite run against a mutant may take before it counts as killed by timeout (0: 5x the unmutated time of the scenarios that reach it, or of the whole suite when that is not known, stretched past two jobs per core, at least a minute)")
	flag.IntVar(&cfg.RunJobs, "run-jobs", mutation.DefaultRunJobs, "scenarios each judged conform run runs at once (its -j; 0: conform's default, 6 per core)")
	flag.BoolVar(&cfg.Serve, "serve", true, "judge a schema program's mutants through judging servers: one conform process serves many runs, with the mutant switched between them")
	flag.BoolVar(&cfg.Alone, "alone", false, "build every mutant on its own instead of compiling many into one schema program")
	flag.IntVar(&cfg.PerPackage, "sample", 0, "judge only this many mutants per package (0: all)")
	flag.Uint64Var(&seed, "seed", 1, "seed of the sample")
	flag.BoolVar(&cfg.Confirm, "confirm", true, "re-run each survivor against the whole suite")
	flag.BoolVar(&cfg.Reach, "reach", true, "measure which statements the suite executes (one coverage run) and report mutants of the others as survivors not reached, without judging them")
	flag.BoolVar(&cfg.PerScenario, "per-scenario", true, "measure which scenarios execute each statement (each scenario run alone on a coverage build) and judge each mutant by those scenarios only, instead of its package's scenarios and then the whole suite")
	flag.StringVar(&cfg.Tree, "tree", "refkernel", "module-relative folder whose packages are mutated (kernelkit: the wire layer the reference kernel is served by)")
	flag.StringVar(&seeds, "plugin-seeds", "1,2", "with -tree refplugin: seeds of conform plugin's generated cases; the first judges every mutant, the others only confirm its survivors")
	flag.BoolVar(&kits, "kit-kernels", true, "with -tree kernelkit: judge the embedded kernel's survivors against kernels built on the kit (examples/kitloop)")
	flag.BoolVar(&repro, "plugin-reproduce", true, "with -tree refplugin: run a killing check again and count the kill only when it comes back")
	flag.BoolVar(&cfg.FromJournal, "from-journal", false, "with -tree refplugin: judge nothing, report the verdicts the journals (-journal) already hold")
	flag.StringVar(&pkgs, "packages", "", "comma-separated module-relative folders to mutate (default: every refkernel package)")
	flag.StringVar(&only, "only", "", "comma-separated places (file:line or file:line:col) or keys: judge only those mutants")
	flag.StringVar(&cfg.Carry.Report, "carry", "", "an earlier campaign's mutation.json: carry its verdicts where the mutated declaration is unchanged")
	flag.IntVar(&cfg.Carry.Recheck, "recheck", 40, "with -carry: judge this many carried kills again (seeded) and report disagreements")
	flag.StringVar(&cfg.OrderFrom, "order-from", "reports/mutation.json", "an earlier campaign's report: the mutants it reports timed out are judged at once, by workers of their own beside the -j jobs (a hang uses no CPU; no verdict is taken from it; empty: none)")
	flag.StringVar(&list, "survivors", "internal/mutation/survivors.json", "the committed classification of survivors")
	flag.StringVar(&out, "out", "reports", "folder for mutation.json and mutation.md (empty: none)")
	flag.StringVar(&cfg.Commit, "commit", "", "the commit being mutated, recorded in the report (make mutation passes git rev-parse HEAD)")
	flag.StringVar(&cfg.Journal, "journal", "", "append every verdict to this JSON-lines file")
	flag.BoolVar(&cfg.Resume, "resume", false, "take the verdicts already in -journal instead of judging those mutants again")
	flag.BoolVar(&quiet, "q", false, "no per-mutant progress")
	flag.BoolVar(&enum, "list", false, "only list the mutants, one per line (place, mutation, key), without judging them")
	flag.BoolVar(&strict, "strict", false, "exit 1 when a survivor is unclassified or a package is below the target")
	flag.Parse()
	cfg.Seed, cfg.Timeout = seed, timeout
	if pkgs != "" {
		cfg.Packages = strings.Split(pkgs, ",")
	}
	if only != "" {
		cfg.Only = strings.Split(only, ",")
	}
	if enum {
		os.Exit(listMutants(cfg))
	}
	if !filepath.IsAbs(list) {
		list = filepath.Join(cfg.Root, list)
	}
	if cfg.OrderFrom != "" && !filepath.IsAbs(cfg.OrderFrom) {
		cfg.OrderFrom = filepath.Join(cfg.Root, cfg.OrderFrom)
	}
	classes, err := mutation.LoadClassifications(list)
	if err != nil {
		fail(err)
	}
	cfg.Classifications = classes
	if !quiet {
		cfg.Log = os.Stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var r *mutation.Report
	if cfg.Tree == "refplugin" {
		units := mutation.PluginUnits()
		ss, err := parseSeeds(seeds)
		if err != nil {
			fail(err)
		}
		for i := range units {
			units[i].Seeds, units[i].Reproduce = ss, repro
		}
		r, err = mutation.RunPlugins(ctx, cfg, units)
		if err != nil {
			fail(err)
		}
	} else if cfg.Tree == "kernelkit" && kits {
		// The embedded kernel runs only the kit's wire layer; kernels
		// built on the kit judge what it lets through.
		if r, err = mutation.RunKernels(ctx, cfg, mutation.KitKernels()); err != nil {
			fail(err)
		}
	} else if r, err = mutation.Run(ctx, cfg); err != nil {
		fail(err)
	}
	if out != "" {
		if err := mutation.WriteReports(out, r); err != nil {
			fail(err)
		}
	}
	if c := r.CPU; c != nil {
		fmt.Printf("%d mutants in %.0f s of wall time; CPU %.0f s (setup %.0f s, builds of mutants %.0f s), %d programs built\n",
			len(r.Mutants), r.DurationS, c.Total, c.Setup, c.Builds, r.Builds)
		fmt.Printf("CPU by part: coverage %.0f s, baseline %.0f s, schema builds %.0f s, %d alone builds %.0f s; %d judged runs: killed %.0f s, crashed %.0f s, timeout %.0f s, survived %.0f s, not viable %.0f s; %d timed-out runs run again, %d of them came to a verdict\n",
			c.Coverage, c.Baseline, c.SchemaBuilds, c.AloneBuildCount, c.AloneBuilds, c.Runs, c.Judging[mutation.Killed], c.Judging[mutation.Crashed],
			c.Judging[mutation.TimedOut], c.Judging[mutation.Survived], c.Judging[mutation.NotViable], c.TimeoutReruns, c.TimeoutRerunsEnded)
	}
	for _, s := range append(r.Packages, r.Totals) {
		fmt.Printf("%-28s %4d mutants  %4d killed  %3d survived  %3d unclassified  score %5.1f%%  spec score %5.1f%%\n",
			s.Package, s.Mutants, s.Killed+s.Crashed+s.TimedOut, s.Survived, s.Unclassified, s.Score*100, s.SpecScore*100)
	}
	if strict && (r.Unclassed > 0 || !r.MeetsGoal) {
		fmt.Fprintf(os.Stderr, "mutate: %d unclassified survivors; target met: %v\n", r.Unclassed, r.MeetsGoal)
		os.Exit(1)
	}
}

func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("-plugin-seeds: %q is not a positive seed", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func listMutants(cfg mutation.Config) int {
	ms, err := mutation.List(cfg.Root, cfg.Tree, cfg.Packages, cfg.PerPackage, cfg.Seed)
	if err != nil {
		fail(err)
	}
	for _, m := range ms {
		fmt.Printf("%s\t%s\t%s\n", m.Pos(), m.Describe(), m.Key)
	}
	return 0
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mutate:", err)
	os.Exit(2)
}
