package mutation

import (
	"context"
	"flag"
	"testing"
	"time"
)

var diffPerPackage = flag.Int("mutation-diff", 0, "judge this many seeded refkernel mutants per package both in schema programs and built alone, and compare (0: skip)")

// TestSchemaDifferential judges the same seeded sample of real refkernel
// mutants twice, in schema programs and each built alone, and requires the
// same verdict for every one: the schema build is an optimisation, never a
// different judge. The seed is the mutation sample's (-mutation-seed).
func TestSchemaDifferential(t *testing.T) {
	if *diffPerPackage <= 0 {
		t.Skip("run with -args -mutation-diff=N")
	}
	run := func(alone bool) map[string]Result {
		r, err := Run(context.Background(), Config{
			Root: "../..", PerPackage: *diffPerPackage, Seed: *sampleSeed, Jobs: *sampleJobs,
			Timeout: 2 * time.Minute, Confirm: true, Alone: alone, Reach: false,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("alone=%v: %d mutants, %d builds, %.0fs", alone, len(r.Mutants), r.Builds, r.DurationS)
		out := map[string]Result{}
		for _, m := range r.Mutants {
			out[m.Key] = m
		}
		return out
	}
	schema, alone := run(false), run(true)
	inSchema := 0
	for key, s := range schema {
		a := alone[key]
		if s.Schema > 0 {
			inSchema++
		}
		if s.Status != a.Status {
			t.Errorf("%s %s: %s in schema build %d (%v %s), %s built alone (%v %s)", s.Pos(), s.Describe(),
				s.Status, s.Schema, s.Failing, s.Detail, a.Status, a.Failing, a.Detail)
		}
	}
	if inSchema == 0 {
		t.Error("no mutant of the sample was judged in a schema program")
	}
	t.Logf("%d of %d mutants judged in schema programs", inSchema, len(schema))
}

var comparePerPackage = flag.Int("mutation-compare", 0, "judge this many seeded refkernel mutants per package the way a campaign did before schemata (each built alone, its package's scenarios then the whole suite) and the way it does now (schema programs, the scenarios reaching it), and compare (0: skip)")

// TestCampaignCompare is make mutation-compare: the same seeded sample of
// real refkernel mutants judged as campaigns judged them before mutant
// schemata and per-scenario reach (every mutant its own build, judged by
// its package's scenarios and then, if it survived them, by the whole
// suite) and as they judge them now (schema programs, judged by the
// scenarios that execute the mutated statement). The verdict — killed
// (killed, crashed or timed out), survived or not viable — must be the
// same for every mutant; which of the kill statuses, and which requirement
// failed first, may differ (the first failure of a --fail-fast run
// depends on which scenarios run and in what order).
func TestCampaignCompare(t *testing.T) {
	if *comparePerPackage <= 0 {
		t.Skip("run with -args -mutation-compare=N (make mutation-compare)")
	}
	run := func(before bool) map[string]Result {
		start := time.Now()
		r, err := Run(context.Background(), Config{
			Root: "../..", PerPackage: *comparePerPackage, Seed: *sampleSeed, Jobs: *sampleJobs,
			Confirm: true, Alone: before, Reach: true, PerScenario: !before,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("before=%v: %d mutants, %d programs built, %.0fs of wall time, %.0fs of worker time",
			before, len(r.Mutants), r.Builds, time.Since(start).Seconds(), r.WorkerS)
		out := map[string]Result{}
		for _, m := range r.Mutants {
			out[m.Key] = m
		}
		return out
	}
	after, before := run(false), run(true)
	verdict := func(s Status) string {
		if s.IsKill() {
			return "killed"
		}
		return string(s)
	}
	same := 0
	for key, a := range after {
		b, ok := before[key]
		switch {
		case !ok:
			t.Errorf("%s %s: judged now but not before", a.Pos(), a.Describe())
		case verdict(a.Status) != verdict(b.Status):
			t.Errorf("%s %s: %s now (scope %s, %v %s), %s before (scope %s, %v %s)", a.Pos(), a.Describe(),
				a.Status, a.Scope, a.Failing, a.Detail, b.Status, b.Scope, b.Failing, b.Detail)
		default:
			same++
			if a.Status != b.Status {
				t.Logf("%s %s: %s now, %s before (both kills)", a.Pos(), a.Describe(), a.Status, b.Status)
			}
		}
	}
	t.Logf("%d of %d mutants have the same verdict", same, len(after))
}
