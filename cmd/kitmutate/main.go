// Command kitmutate runs the mutation campaign of an adapter kit (package
// internal/kitmutation): the Python kit's mutants (-kit python, make
// mutation-pythonkit) or the Node kit's (-kit node, make
// mutation-nodekit), judged by conform run against kernels built on the
// kit and by the kit's self-test transcript, and writes
// reports/mutation-<kit>/mutation.json and mutation.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agentconform/conform/internal/kitmutation"
	"github.com/agentconform/conform/internal/mutation"
)

func main() {
	var (
		cfg    kitmutation.Config
		kit    string
		out    string
		list   string
		only   string
		quiet  bool
		strict bool
	)
	flag.StringVar(&kit, "kit", "python", "the kit: python or node")
	flag.StringVar(&cfg.Root, "root", ".", "module root")
	flag.StringVar(&cfg.Conform, "conform", "", "a built conform CLI (default: build one)")
	// Two, because a judged run is itself a conform run of -run-jobs
	// kernels at once, and the machine has two cores shared with others.
	flag.IntVar(&cfg.Jobs, "j", 2, "mutants judged at once")
	flag.IntVar(&cfg.RunJobs, "run-jobs", 4, "scenarios each judged conform run runs at once (its -j)")
	flag.IntVar(&cfg.Sample, "sample", 0, "judge only this many mutants per file, seeded (0: all)")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "seed of the sample")
	flag.StringVar(&only, "only", "", "comma-separated places (file:line or file:line:col) or keys: judge only those mutants")
	flag.StringVar(&list, "survivors", "", "the committed classification of survivors (default internal/kitmutation/survivors-<kit>.json)")
	flag.StringVar(&out, "out", "", "folder for mutation.json and mutation.md (default reports/mutation-<kit>; \"-\": none)")
	flag.StringVar(&cfg.Commit, "commit", "", "the commit being mutated, recorded in the report")
	flag.StringVar(&cfg.Journal, "journal", "", "write every verdict to this JSON-lines file as it comes")
	flag.BoolVar(&cfg.FromJournal, "from-journal", false, "judge nothing: report the verdicts -journal holds (mutants are judged in a seeded random order, so a campaign stopped early leaves a random sample)")
	flag.StringVar(&cfg.Carry, "carry", "", "an earlier journal of the kit: take its kills and mutants that do not compile instead of judging them again (its survivors are judged again)")
	flag.StringVar(&cfg.CarryFrom, "carry-from", "", "how the report names the campaign -carry comes from (default: the file name)")
	flag.BoolVar(&cfg.OnlyCarried, "only-carried", false, "judge only the mutants -carry holds (a sample judged again after new checks: its kills carried, its survivors judged)")
	flag.BoolVar(&quiet, "q", false, "no per-mutant progress")
	flag.BoolVar(&strict, "strict", false, "exit 1 when a survivor is unclassified or the kit is below the target")
	flag.Parse()
	switch kit {
	case "python":
		cfg.Kit = kitmutation.Python
	case "node":
		cfg.Kit = kitmutation.Node
	default:
		fail(fmt.Errorf("-kit %q: python or node", kit))
	}
	if list == "" {
		list = filepath.Join(cfg.Root, "internal", "kitmutation", "survivors-"+cfg.Kit.Name+".json")
	}
	if out == "" {
		out = filepath.Join(cfg.Root, "reports", "mutation-"+cfg.Kit.Name)
	}
	if only != "" {
		cfg.Only = strings.Split(only, ",")
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
	r, err := kitmutation.Run(ctx, cfg)
	if err != nil {
		fail(err)
	}
	if out != "-" {
		if err := mutation.WriteReports(out, r); err != nil {
			fail(err)
		}
	}
	if r.CPU != nil {
		fmt.Printf("%d mutants in %.0f s of wall time; CPU %.0f s (setup %.0f s)\n", len(r.Mutants), r.DurationS, r.CPU.Total, r.CPU.Setup)
	}
	for _, s := range []mutation.Score{r.Totals, *r.Before} {
		fmt.Printf("%-50s %4d mutants  %4d killed  %3d survived  %3d unclassified  score %5.1f%%  spec score %5.1f%%\n",
			s.Package, s.Mutants, s.Killed+s.Crashed+s.TimedOut, s.Survived, s.Unclassified, s.Score*100, s.SpecScore*100)
	}
	if strict && (r.Unclassed > 0 || !r.MeetsGoal) {
		fmt.Fprintf(os.Stderr, "kitmutate: %d unclassified survivors; target met: %v\n", r.Unclassed, r.MeetsGoal)
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "kitmutate:", err)
	os.Exit(2)
}
