package mutation

import (
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sample = `package p

func f(xs []int, n int) int {
	total := 0
	for _, x := range xs {
		total += x
	}
	if n < 3 && n >= 1 {
		total = total * 2
	}
	if n == 0 {
		g("a" + "b")
	}
	buf := make([]int, 0, 8)
	m := make(map[string]int, 4)
	_ = buf
	_ = m
	n++
	return total - n
}

func g(string) {}
`

func TestEnumerateEveryOperator(t *testing.T) {
	ms, err := Enumerate("p", "p/p.go", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.Describe())
	}
	want := []string{
		"const: `0` -> `1`",
		"loop_cut: `for _, x := range xs` ends after the first pass through its whole body",
		"arith: `+=` -> `-=`",
		"drop_assign: `total += x` removed",
		"negate: `n < 3 && n >= 1` -> `!(n < 3 && n >= 1)`",
		"boundary: `<` -> `<=`",
		"const: `3` -> `4`",
		"boundary: `>=` -> `>`",
		"const: `1` -> `2`",
		"drop_assign: `total = total * 2` removed",
		"arith: `*` -> `/`",
		"const: `2` -> `3`",
		// if n == 0 is negated by its operator swap only.
		"negate: `==` -> `!=`",
		"const: `0` -> `1`",
		"remove_call: `g(\"a\" + \"b\")` removed",
		// "a" + "b" is a string concatenation: no arithmetic swap.
		// make's capacity 8 and size hint 4 change nothing: not mutated.
		"const: `0` -> `1`",
		"arith: `++` -> `--`",
		"arith: `-` -> `+`",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mutants (-want +got):\n%s", d)
	}
}

func TestEveryMutantParsesAndDiffersFromTheOriginal(t *testing.T) {
	ms, err := Enumerate("p", "p/p.go", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, m := range ms {
		out, err := m.Apply([]byte(sample))
		if err != nil {
			t.Fatal(err)
		}
		if string(out) == sample {
			t.Errorf("%s: the mutant is the original", m.Key)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "p.go", out, 0); err != nil {
			t.Errorf("%s: mutant does not parse: %v\n%s", m.Key, err, out)
		}
		if keys[m.Key] {
			t.Errorf("key %s given twice", m.Key)
		}
		keys[m.Key] = true
	}
}

func TestLoopCutBreaksAfterTheFirstElement(t *testing.T) {
	ms, _ := Enumerate("p", "p/p.go", []byte(sample))
	i := slices.IndexFunc(ms, func(m Mutant) bool { return m.Op == LoopCut })
	out, err := ms[i].Apply([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "total += x\n\t\nbreak\n}") {
		t.Errorf("break not at the end of the loop body:\n%s", out)
	}
}

// Keys are what the committed classification list refers to; an edit
// elsewhere in the file must not change them.
func TestKeysSurviveEditsElsewhere(t *testing.T) {
	before, _ := Enumerate("p", "p/p.go", []byte(sample))
	edited := strings.Replace(sample, "package p\n", "package p\n\n// A new comment.\nvar unrelated = true\n", 1)
	after, _ := Enumerate("p", "p/p.go", []byte(edited))
	if len(before) != len(after) {
		t.Fatalf("%d mutants before, %d after", len(before), len(after))
	}
	for i := range before {
		if before[i].Key != after[i].Key {
			t.Errorf("key changed: %s -> %s", before[i].Key, after[i].Key)
		}
		if after[i].Line != before[i].Line+3 {
			t.Errorf("%s: line %d, want %d", after[i].Key, after[i].Line, before[i].Line+3)
		}
	}
}

func TestApplyRefusesAnotherFile(t *testing.T) {
	ms, _ := Enumerate("p", "p/p.go", []byte(sample))
	if _, err := ms[len(ms)-1].Apply([]byte("package p\n")); err == nil {
		t.Error("a mutant applied to a shorter file than its own")
	}
}

func TestEnumerateRejectsBadSource(t *testing.T) {
	if _, err := Enumerate("p", "p/p.go", []byte("package p\nfunc {")); err == nil || !strings.Contains(err.Error(), "p/p.go") {
		t.Errorf("err = %v, want a parse error naming the file", err)
	}
}
