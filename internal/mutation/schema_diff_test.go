package mutation

import (
	"context"
	"encoding/json"
	"flag"
	"os"
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

var compareWith = flag.String("mutation-compare-with", "", "with -mutation-compare: take the verdicts of now from this campaign's mutation.json (a campaign from scratch, nothing carried) instead of judging the sample again")

var compareBefore = flag.String("mutation-compare-before", "", "with -mutation-compare: take the verdicts of before from this campaign's mutation.json (mutate -sample N -seed S -alone -per-scenario=false) instead of judging the sample again")

var comparePerPackage = flag.Int("mutation-compare", 0, "judge this many seeded refkernel mutants per package the way a campaign did before schemata (each built alone, its package's scenarios then the whole suite) and the way it does now (schema programs, the scenarios reaching it), and compare (0: skip)")

// TestCampaignCompare is make mutation-compare: the same seeded sample of
// real refkernel mutants judged as campaigns judged them before mutant
// schemata and per-scenario reach (every mutant its own build, judged by
// its package's scenarios and then, if it survived them, by the whole
// suite) and as they judge them now (schema programs, judged by the
// scenarios that execute the mutated statement, through judging servers). The verdict — killed
// (killed, crashed or timed out), survived or not viable — must be the
// same for every mutant; which of the kill statuses, and which requirement
// failed first, may differ (the first failure of a --fail-fast run
// depends on which scenarios run and in what order).
func TestCampaignCompare(t *testing.T) {
	if *comparePerPackage <= 0 {
		t.Skip("run with -args -mutation-compare=N (make mutation-compare)")
	}
	done := map[bool]map[string]Result{}
	run := func(before bool) map[string]Result {
		if r, ok := done[before]; ok {
			return r
		}
		start := time.Now()
		r, err := Run(context.Background(), Config{
			Root: "../..", PerPackage: *comparePerPackage, Seed: *sampleSeed, Jobs: *sampleJobs,
			Confirm: true, Alone: before, Reach: true, PerScenario: !before, Serve: !before, RunJobs: DefaultRunJobs,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("before=%v: %d mutants, %d programs built, %.0fs of wall time, %.0fs of worker time, CPU %+v",
			before, len(r.Mutants), r.Builds, time.Since(start).Seconds(), r.WorkerS, *r.CPU)
		out := map[string]Result{}
		for _, m := range r.Mutants {
			out[m.Key] = m
		}
		done[before] = out
		return out
	}
	var before, after map[string]Result
	if *compareBefore != "" {
		sample, err := List("../..", "", nil, *comparePerPackage, *sampleSeed)
		if err != nil {
			t.Fatal(err)
		}
		keys := map[string]Result{}
		for _, m := range sample {
			keys[m.Key] = Result{Mutant: m}
		}
		before = fromCampaign(t, *compareBefore, keys)
	} else {
		before = run(true)
	}
	if *compareWith != "" {
		after = fromCampaign(t, *compareWith, before)
	} else {
		after = run(false)
	}
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

// fromCampaign takes the verdicts of the sampled mutants from a campaign's
// JSON report; it fails on one carried from an earlier campaign (judged by
// another build and suite) or missing.
func fromCampaign(t *testing.T, path string, sample map[string]Result) map[string]Result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Mutants []Result `json:"mutants"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	all := map[string]Result{}
	for _, m := range r.Mutants {
		all[m.Key] = m
	}
	out := map[string]Result{}
	for key, s := range sample {
		m, ok := all[key]
		switch {
		case !ok:
			t.Fatalf("%s %s is not in %s", s.Pos(), s.Describe(), path)
		case m.CarriedFrom != "":
			t.Fatalf("%s %s: its verdict in %s was carried from %s, not judged", s.Pos(), s.Describe(), path, m.CarriedFrom)
		}
		out[key] = m
	}
	t.Logf("%d verdicts of the sample from %s", len(out), path)
	return out
}
