package mutants

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/fuzz"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/refkernel/loop"
)

// fuzzTargets are the doom-loop and bounds mutants that conform fuzz must
// find within its default number of cases. bounds/soft-by-default is not
// among them: its sessions wait for input until the harness's time limit,
// so shrinking one takes minutes; the TA-22 scenario kills it.
var fuzzTargets = []string{
	"bounds/checked-before-tools",
	"bounds/cost-never-checked",
	"bounds/max-turns-off-by-one",
	"bounds/never-fire",
	"bounds/turn-bound-masks-the-others",
	"bounds/wall-clock-never-checked",
	"doomloop/error-instead-of-final-turn",
	"doomloop/fires-one-call-early",
	"doomloop/never-fires",
	"doomloop/raw-bytes-hash",
}

// For each target: conform fuzz (default case count, in-process) finds the
// mutant; the shrunk case it writes fails on the mutant and passes on the
// reference kernel, when run as an ordinary feature folder.
func TestFuzzKillsBoundsAndDoomLoopMutants(t *testing.T) {
	if testing.Short() || raceEnabled {
		// Fuzzing every mutant end to end takes minutes under the race
		// detector; make e2e runs it without -race.
		t.Skip("runs conform fuzz against every bounds and doom-loop mutant (make e2e runs it without -race)")
	}
	byName := map[string]Mutant{}
	for _, m := range all() {
		byName[m.Name] = m
	}
	ctx := context.Background()
	for _, name := range fuzzTargets {
		m, ok := byName[name]
		if !ok {
			t.Errorf("no mutant %s", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			parts := m.Apply(loop.DefaultParts())
			dir := t.TempDir()
			res, err := fuzz.Run(ctx, fuzz.Options{Launcher: launcher(name, parts), OutDir: dir, ShrinkTime: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Failed {
				t.Fatalf("conform fuzz ran %d cases (seed %d) and did not find the mutant", res.Cases, res.Seed)
			}
			t.Logf("found after %d cases, %d runs with shrinking, %v (seed %d), failing %v: %s", res.FoundAfter, res.Cases, res.Elapsed.Round(time.Millisecond), res.Seed, res.Requirements, firstLine(res.Failure))
			// Each invariant proves one requirement: the shrunk case fails
			// the mutant's targets and nothing else.
			if len(res.Requirements) == 0 {
				t.Errorf("the shrunk case fails no requirement: %s", res.Failure)
			}
			for _, id := range res.Requirements {
				if !slices.Contains(m.Targets, id) {
					t.Errorf("the shrunk case fails %s, which the mutant (targets %v) does not break: %s\n%s", id, m.Targets, res.Failure, res.Feature)
				}
			}
			for _, k := range []struct {
				name  string
				parts loop.Parts
				pass  bool
			}{{name, parts, false}, {"reference", loop.DefaultParts(), true}} {
				r, err := runner.Run(ctx, runner.Options{Launcher: launcher(k.name, k.parts), FS: os.DirFS(res.FeatureDir), Root: ".", ScenarioTimeout: 10 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Scenarios) != 1 {
					t.Fatalf("the written feature holds %d scenarios", len(r.Scenarios))
				}
				if got := r.Scenarios[0].Status == report.Pass; got != k.pass {
					t.Errorf("the written feature on %s: %s %s\n%s", k.name, r.Scenarios[0].Status, r.Scenarios[0].Failure, res.Feature)
				}
			}
		})
	}
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}

// conform fuzz runs its cases from their lines, without godog; run as
// feature files through godog instead, the same seed finds the same
// failure after the same number of cases and shrinks it to the same
// feature file. The mutants are ones whose failure does not depend on
// timing, so both runs walk the same cases, and whose shrinking ends well
// within the shrink time (bounds/cost-never-checked takes thousands of
// shrinking runs: via features it is cut by the time limit). One mutant
// keeps make e2e short: doomloop/fires-one-call-early agreed too, in 370 s
// at load 60.
func TestFuzzFindsTheSameViaFeatures(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("runs conform fuzz twice per mutant (make e2e runs it without -race)")
	}
	byName := map[string]Mutant{}
	for _, m := range all() {
		byName[m.Name] = m
	}
	for _, name := range []string{"bounds/max-turns-off-by-one"} {
		t.Run(name, func(t *testing.T) {
			parts := byName[name].Apply(loop.DefaultParts())
			var got [2]fuzz.Result
			for i, via := range []bool{false, true} {
				res, err := fuzz.Run(context.Background(), fuzz.Options{Launcher: launcher(name, parts), Seed: 7, ShrinkTime: 5 * time.Minute, ViaFeatures: via})
				if err != nil {
					t.Fatal(err)
				}
				if !res.Failed {
					t.Fatalf("seed 7 did not find the mutant (via features: %v)", via)
				}
				got[i] = res
			}
			a, b := got[0], got[1]
			if a.FoundAfter != b.FoundAfter || a.Cases != b.Cases || a.Failure != b.Failure || !slices.Equal(a.Requirements, b.Requirements) || a.Feature != b.Feature {
				t.Errorf("from lines: found after %d, %d cases, %v: %s\n%s\nvia features: found after %d, %d cases, %v: %s\n%s",
					a.FoundAfter, a.Cases, a.Requirements, a.Failure, a.Feature, b.FoundAfter, b.Cases, b.Requirements, b.Failure, b.Feature)
			}
			t.Logf("both found it after %d cases and shrank it in %d runs; from lines %v, via features %v", a.FoundAfter, a.Cases, a.Elapsed.Round(time.Millisecond), b.Elapsed.Round(time.Millisecond))
		})
	}
}
