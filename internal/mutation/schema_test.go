package mutation

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSchemaRewrite builds a small program's mutants both ways: each one
// alone, as a campaign without schemata does, and all of them in schema
// programs. Every mutant must print the same with its switch on as built
// alone, and every schema program with no switch must print what the
// original prints. Every operator has a mutant in the program, and so has
// each case a schema must leave to a build of its own.
func TestSchemaRewrite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a few dozen small programs")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root := t.TempDir()
	src, err := os.ReadFile("testdata/schemademo/main.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(root, "go.mod"), "module demo\n\ngo 1.22\n")
	write(t, filepath.Join(root, "demo", "main.go"), string(src))
	ms, err := Enumerate("demo", "demo/main.go", src)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	j := &judge{root: root, goTool: goTool, target: "./demo", tmp: t.TempDir(), now: time.Now}
	ids := make([]int, len(ms))
	for i := range ids {
		ids[i] = i
	}
	// An unreached mutant is never built; one the type checker refuses is
	// known not viable all the same, and one it accepts is not.
	broken, fine := ms[0], ms[0]
	broken.text = "undefinedName"
	unreached, err := planSchemata(ctx, j, []Mutant{broken, fine}, nil, []int{0, 1}, map[string][]byte{"demo/main.go": src}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !unreached.uncompilable[0] || unreached.uncompilable[1] {
		t.Errorf("uncompilable %v: want only the mutant naming an undefined identifier", unreached.uncompilable)
	}
	// A reached mutant no schema can hold (a constant declaration, line
	// 51) that go/types refuses is not viable without a build too.
	for _, m := range ms {
		if m.Line != 51 || m.Op != Const {
			continue
		}
		m.text = "undefinedName"
		aloneBroken, err := planSchemata(ctx, j, []Mutant{m}, []int{0}, nil, map[string][]byte{"demo/main.go": src}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !aloneBroken.uncompilable[0] {
			t.Errorf("%s mutated to an undefined name, which no schema holds: not known not viable, so it would be built", m.Pos())
		}
	}
	decl, err := loadDeclUses(ctx, j, "demo", map[string][]byte{"demo/main.go": src})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := planSchemata(ctx, j, ms, ids, nil, map[string][]byte{"demo/main.go": src}, decl)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[Op]bool{}
	for i := range ms {
		if plan.of[i] != nil {
			ops[ms[i].Op] = true
		}
	}
	for _, op := range Ops {
		if !ops[op] {
			t.Errorf("no %s mutant was put in a schema", op)
		}
	}
	// What a schema cannot hold: an array length (26, refused by the type
	// checker once rewritten), a removed panic (31: it may end a
	// function), a constant the next spec repeats (47), a constant used as
	// an array length (51).
	mustBeAlone := map[int]Op{26: Const, 31: RemoveCall, 47: Const, 51: Const}
	// What it holds in a called function literal: a for statement's post
	// statement (27, 34), an if statement's init assignment (38), and a
	// literal inside a constant expression, the whole of which it switches
	// (23, 41: 7/2*2.0 is 6, computed exactly; 42: a negative literal);
	// and a constant every use takes as a plain value, made a variable
	// set at the start (10).
	mustBeIn := map[int]Op{10: Const, 23: Const, 27: Arith, 34: Arith, 38: DropAssign, 41: Const, 42: Const}
	in := map[int]bool{}
	for i, m := range ms {
		// Switched at the start (a variable's value), so never judged
		// on a judging server, which switches per run.
		if plan.of[i] != nil && plan.atInit[i] != (m.Func == "") {
			t.Errorf("%s %s (in function %q): switched at the program's start %v", m.Pos(), m.Describe(), m.Func, plan.atInit[i])
		}
		if op, ok := mustBeAlone[m.Line]; ok && op == m.Op && plan.of[i] != nil {
			t.Errorf("%s %s is in a schema; it must be built alone", m.Pos(), m.Describe())
		}
		if op, ok := mustBeIn[m.Line]; ok && op == m.Op {
			in[m.Line] = true
			if plan.of[i] == nil {
				t.Errorf("%s %s is built alone; a schema holds it in a function literal", m.Pos(), m.Describe())
			}
		}
	}
	for line := range mustBeIn {
		if !in[line] {
			t.Errorf("the demo has no %s mutant on line %d", mustBeIn[line], line)
		}
	}
	bin, err := j.build(ctx, t.TempDir(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := runDemo(bin, -1)
	for _, b := range plan.builds {
		sbin := b.binary(ctx, j, map[string][]byte{"demo/main.go": src}, -1)
		if sbin == "" {
			t.Fatalf("schema build %d failed", b.n)
		}
		if got := runDemo(sbin, -1); got != want {
			t.Errorf("schema %d with no switch prints %q, the original %q", b.n, got, want)
		}
	}
	// Each mutant built alone, a few at a time: the builds dominate.
	alone := make([]string, len(ms))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 3)
	for i := range ms {
		if plan.of[i] == nil {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			dir := filepath.Join(j.tmp, "alone"+strconv.Itoa(i))
			abin, err := j.build(ctx, dir, &ms[i], src)
			if err != nil {
				alone[i] = "does not build alone: " + err.Error()
				return
			}
			alone[i] = runDemo(abin, -1)
		})
	}
	wg.Wait()
	changed := 0
	for i, m := range ms {
		b := plan.of[i]
		if b == nil {
			continue
		}
		if schema := runDemo(b.binary(ctx, j, nil, i), i); alone[i] != schema {
			t.Errorf("%s %s: alone prints %q, in schema %d %q", m.Pos(), m.Describe(), alone[i], b.n, schema)
		}
		if alone[i] != want {
			changed++
		}
	}
	if changed == 0 {
		t.Error("no mutant changed what the program prints: the comparison proves nothing")
	}
}

func runDemo(bin string, id int) string {
	cmd := exec.Command(bin)
	cmd.Env = os.Environ()
	if id >= 0 {
		cmd.Env = append(cmd.Env, mutantEnv+"="+strconv.Itoa(id))
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	s := out.String()
	if i := strings.Index(s, "\ngoroutine "); i >= 0 {
		s = s[:i] // a panic's trace names the file the program was built from
	}
	if err != nil {
		s += " (" + err.Error() + ")"
	}
	return s
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPartition: nested sites go to different groups, disjoint ones share
// one, and an insertion point inside a site does not share its group.
func TestPartition(t *testing.T) {
	ss := []site{{id: 1, start: 0, end: 10}, {id: 2, start: 2, end: 4}, {id: 3, start: 5, end: 5},
		{id: 4, start: 10, end: 12}, {id: 5, start: 4, end: 6}}
	groups := partition(ss)
	var got [][]int
	for _, g := range groups {
		var ids []int
		for _, s := range g {
			ids = append(ids, s.id)
		}
		got = append(got, ids)
	}
	want := [][]int{{1, 4}, {2, 5}, {3}}
	if !slices.EqualFunc(got, want, slices.Equal[[]int]) {
		t.Errorf("partition = %v, want %v", got, want)
	}
}
