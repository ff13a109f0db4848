package mutation

import "testing"

func TestCarryTakesOnlyVerdictsOfUnchangedCode(t *testing.T) {
	old := []byte("package p\n\nfunc A(x int) bool { return x < 3 }\n\nfunc B() int { return 1 }\n")
	now := []byte("package p\n\n// moved down a line\nfunc A(x int) bool { return x < 3 }\n\nfunc B() int { return 2 }\n")
	mk := func(fn, key string) Mutant { return Mutant{File: "p/f.go", Func: fn, Key: key} }
	c := &carried{commit: "abc", sources: map[string][]byte{"p/f.go": old}, byKey: map[string]Result{
		"a-kill":        {Mutant: mk("A", "a-kill"), Status: Killed, Failing: []string{"TA-02"}},
		"b-kill":        {Mutant: mk("B", "b-kill"), Status: Killed},
		"a-surv":        {Mutant: mk("A", "a-surv"), Status: Survived},
		"a-eq":          {Mutant: mk("A", "a-eq"), Status: Survived},
		"a-open":        {Mutant: mk("A", "a-open"), Status: Survived},
		"a-lv":          {Mutant: mk("A", "a-lv"), Status: Survived},
		"a-kill-listed": {Mutant: mk("A", "a-kill-listed"), Status: Killed},
	}}
	classes := map[string]Classification{
		"a-surv":        {Key: "a-surv", Class: NeedsCheck},
		"a-eq":          {Key: "a-eq", Class: Equivalent},
		"a-open":        {Key: "a-open", Class: OpenReading},
		"a-lv":          {Key: "a-lv", Class: LegalVariant},
		"a-kill-listed": {Key: "a-kill-listed", Class: OpenReading},
	}
	for _, tc := range []struct {
		key  string
		want bool
	}{
		{"a-kill", true},         // declaration unchanged, though the file moved
		{"b-kill", false},        // its declaration changed
		{"a-surv", false},        // a survivor that needs a check is judged again
		{"a-eq", true},           // an equivalent stays equivalent
		{"a-open", false},        // a newly declared reading may kill it
		{"a-lv", false},          // a new check killing it would be a false failure
		{"a-kill-listed", false}, // a kill the list says survives: judged again
		{"new", false},           // no earlier verdict
	} {
		fn := "A"
		if tc.key == "b-kill" {
			fn = "B"
		}
		r, ok := c.take(mk(fn, tc.key), now, classes)
		if ok != tc.want {
			t.Errorf("%s: carried %v, want %v", tc.key, ok, tc.want)
		}
		if ok && r.CarriedFrom != "abc" {
			t.Errorf("%s: carried from %q", tc.key, r.CarriedFrom)
		}
	}
}

func TestRecheckSampleIsSeededAndOnlyKills(t *testing.T) {
	rs := []Result{{Status: Killed, CarriedFrom: "x"}, {Status: Survived, CarriedFrom: "x"}, {Status: Killed}, {Status: Crashed, CarriedFrom: "x"}}
	a, b := recheckSample(rs, 5, 7), recheckSample(rs, 5, 7)
	if len(a) != 2 || !a[0] || !a[3] || len(b) != 2 {
		t.Errorf("sample %v %v: want the two carried kills", a, b)
	}
}
