package mutation

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func res(pkg string, line int, op Op, st Status) Result {
	m := Mutant{Package: pkg, File: pkg + "/f.go", Line: line, Col: 1, Op: op, Orig: "<", Repl: "<="}
	m.Key = m.File + "|" + string(rune('a'+line))
	return Result{Mutant: m, Status: st}
}

func TestScoresLeaveOutEquivalentsAndNonViable(t *testing.T) {
	rs := []Result{
		res("a", 1, Boundary, Killed), res("a", 2, Boundary, Crashed), res("a", 3, Boundary, TimedOut),
		res("a", 4, Boundary, Killed), res("a", 5, Boundary, NotViable), res("a", 6, Boundary, Survived),
		res("a", 7, Boundary, Survived), res("a", 8, Boundary, Survived), res("a", 9, Boundary, HarnessError),
		res("a", 10, Boundary, Survived), res("a", 11, Boundary, Survived),
	}
	cfg := withDefaults(Config{Classifications: map[string]Classification{
		rs[5].Key:  {Key: rs[5].Key, Class: Equivalent, Reason: "r"},
		rs[6].Key:  {Key: rs[6].Key, Class: NotObservable, Clause: "PA-18", Reason: "r"},
		rs[9].Key:  {Key: rs[9].Key, Class: OpenReading, Clause: "A-06", Reason: "r"},
		rs[10].Key: {Key: rs[10].Key, Class: LegalVariant, Clause: "doom_loop.default_threshold", Reason: "r"},
		"gone":     {Key: "gone", Class: Equivalent, Reason: "r"},
	}})
	r := newReport(cfg, []Package{{Dir: "a"}}, rs, time.Minute)
	s := r.Packages[0]
	// The legal variant leaves both scores like an equivalent, the open
	// reading the spec score only; the not observable counts against both.
	want := Score{Package: "a", Mutants: 11, NotViable: 1, HarnessErrors: 1, Killed: 2, Crashed: 1, TimedOut: 1,
		Survived: 5, Equivalent: 1, LegalVariant: 1, NotObservable: 1, OpenReading: 1, Unclassified: 1,
		Raw: 4.0 / 9, Score: 4.0 / 7, SpecScore: 4.0 / 6}
	if d := cmp.Diff(want, s); d != "" {
		t.Errorf("score (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"a"}, r.BelowStrict); d != "" {
		t.Errorf("below the strict target (-want +got):\n%s", d)
	}
	if r.MeetsGoal || r.Unclassed != 1 || len(r.Survivors) != 5 {
		t.Errorf("meets %v, unclassified %d, survivors %d", r.MeetsGoal, r.Unclassed, len(r.Survivors))
	}
	if d := cmp.Diff([]string{"gone"}, r.Stale); d != "" {
		t.Errorf("stale (-want +got):\n%s", d)
	}
}

func TestSampleReportCallsNothingStale(t *testing.T) {
	cfg := withDefaults(Config{PerPackage: 2, Classifications: map[string]Classification{"gone": {}}})
	r := newReport(cfg, []Package{{Dir: "a"}}, []Result{res("a", 1, Const, Killed)}, time.Second)
	if len(r.Stale) != 0 || !r.MeetsGoal {
		t.Errorf("stale %v, meets %v", r.Stale, r.MeetsGoal)
	}
}

func TestMarkdownKeepsRunTextInsideItsCell(t *testing.T) {
	bad := res("a", 1, RemoveCall, HarnessError)
	bad.Detail = "boom | </td><script>x</script>\n# heading `tick`"
	surv := res("a", 2, Boundary, Survived)
	surv.Orig = "a || b"
	surv.Unreproduced = []string{"HD-05"}
	r := newReport(withDefaults(Config{}), []Package{{Dir: "a"}}, []Result{bad, surv}, time.Second)
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"`boom \\| </td><script>x</script> # heading 'tick'`", "`a \\|\\| b`", "**unclassified**",
		"failed once on HD-05, but not again", "- HD-05: 1"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "\n# heading") {
		t.Errorf("run text broke out of its line:\n%s", md)
	}
}

func TestSampleIsDeterministic(t *testing.T) {
	ms, err := Enumerate("p", "p/p.go", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	a, b := Sample(ms, 5, 7), Sample(ms, 5, 7)
	if d := cmp.Diff(a, b, cmp.AllowUnexported(Mutant{})); d != "" {
		t.Errorf("same seed, different samples:\n%s", d)
	}
	if len(a) != 5 {
		t.Fatalf("%d mutants, want 5", len(a))
	}
	at := map[string]int{}
	for i, m := range ms {
		at[m.Key] = i
	}
	for i := 1; i < len(a); i++ {
		if at[a[i].Key] <= at[a[i-1].Key] {
			t.Errorf("sample not in source order: %s before %s", a[i-1].Pos(), a[i].Pos())
		}
	}
	if len(Sample(ms, 0, 7)) != len(ms) || len(Sample(ms, len(ms)+3, 7)) != len(ms) {
		t.Error("n <= 0 or n >= len must keep every mutant")
	}
	if cmp.Equal(Sample(ms, 5, 7), Sample(ms, 5, 8), cmp.AllowUnexported(Mutant{})) {
		t.Error("another seed gave the same sample (possible, but not for this input)")
	}
}

func TestJSONKeepsEveryMutantOnALine(t *testing.T) {
	rs := []Result{res("a", 1, Boundary, Killed), res("a", 2, Const, Survived)}
	r := newReport(withDefaults(Config{}), []Package{{Dir: "a"}}, rs, time.Second)
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	if len(back.Mutants) != 2 || len(back.Survivors) != 1 || back.Totals.Mutants != 2 {
		t.Errorf("mutants %d, survivors %d, totals %+v", len(back.Mutants), len(back.Survivors), back.Totals)
	}
	if n := strings.Count(b.String(), `"key":`); n != 3 {
		t.Errorf("%d keys, want 3 (2 mutants + 1 survivor)", n)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, `"key":`) && !strings.HasPrefix(l, "    {") {
			t.Errorf("a mutant spans lines: %q", l)
		}
	}
}
