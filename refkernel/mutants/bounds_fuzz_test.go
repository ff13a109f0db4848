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
