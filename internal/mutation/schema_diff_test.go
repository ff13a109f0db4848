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
