package kitmutation

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentconform/conform/internal/mutation"
)

func TestSlice(t *testing.T) {
	lines := []string{"const a = b || c;", "if (x &&", "  y) {}"}
	if got := slice(lines, pos{0, 10}, pos{0, 16}); got != "b || c" {
		t.Errorf("one line: %q", got)
	}
	if got := slice(lines, pos{1, 4}, pos{2, 3}); got != "x &&\n  y" {
		t.Errorf("two lines: %q", got)
	}
	if got := slice(lines, pos{2, 0}, pos{3, 0}); got != "" {
		t.Errorf("past the end: %q", got)
	}
}

func TestKeysAreStableAndUnique(t *testing.T) {
	ms := []mutant{
		{Mutant: mutation.Mutant{File: "k.py", Func: "f", Op: "negate", Orig: "a == b", Repl: "(a != b)", Line: 3}},
		{Mutant: mutation.Mutant{File: "k.py", Func: "f", Op: "negate", Orig: "a == b", Repl: "(a != b)", Line: 9}},
	}
	keyed(ms)
	if ms[0].Key == ms[1].Key || strings.Contains(ms[0].Key, "|3|") {
		t.Errorf("keys %q, %q: want distinct and without the line", ms[0].Key, ms[1].Key)
	}
}

func TestChooseSamplesPerFileSeeded(t *testing.T) {
	var ms []mutant
	for i := range 20 {
		ms = append(ms, mutant{Mutant: mutation.Mutant{File: []string{"a", "b"}[i%2], Line: i}})
	}
	a, b := choose(ms, Config{Sample: 3, Seed: 7}), choose(ms, Config{Sample: 3, Seed: 7})
	if len(a) != 6 {
		t.Fatalf("%d mutants, want 3 per file", len(a))
	}
	for i := range a {
		if a[i].Line != b[i].Line {
			t.Fatal("the same seed chose differently")
		}
	}
	if got := choose(ms, Config{Only: []string{"a:4"}}); len(got) != 1 || got[0].Line != 4 {
		t.Errorf("-only a:4 chose %v", got)
	}
}

// TestPythonMutantsCompileAndKeepLines lists the mutants of the Python kit
// and applies each: every one the lister calls viable must compile, and
// none may change the file's line count (reports name original lines).
func TestPythonMutantsCompileAndKeepLines(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	root, _ := filepath.Abs("../..")
	ms, err := listPython(context.Background(), root, t.TempDir(), Python)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(root, Python.Dir, Python.Files[0]))
	if err != nil {
		t.Fatal(err)
	}
	ops := map[mutation.Op]int{}
	for _, m := range ms {
		ops[m.Op]++
		out := append(append(append([]byte{}, src[:m.start]...), m.text...), src[m.end:]...)
		if bytes.Count(out, []byte("\n")) != bytes.Count(src, []byte("\n")) {
			t.Errorf("%s %s changes the line count", m.Pos(), m.Describe())
		}
		if m.notViable != "" {
			t.Errorf("%s %s does not compile: %s", m.Pos(), m.Describe(), m.notViable)
		}
	}
	for _, op := range mutation.Ops {
		if ops[op] == 0 {
			t.Errorf("no %s mutant of the Python kit", op)
		}
	}
}

// A journal naming a mutant the kit no longer has is refused, unless the
// sample is judged again after the kit changed: then it is left out and
// named.
func TestReadJournalLeavesOutChangedMutantsOnlyWhenLenient(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	if err := os.WriteFile(path, []byte(`{"key":"a|kept"}`+"\n"+`{"key":"a|gone"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ms := []mutant{{Mutant: mutation.Mutant{Key: "a|kept"}}}
	if _, err := readJournal(path, ms, nil); err == nil {
		t.Error("a journal naming a mutant the kit no longer has was read")
	}
	var log strings.Builder
	got, err := readJournal(path, ms, &log)
	if err != nil || len(got) != 1 || got[0].Key != "a|kept" || !strings.Contains(log.String(), "a|gone") {
		t.Errorf("lenient read = %v, %v, log %q; want only a|kept, a|gone named", got, err, log.String())
	}
}

// A Python kit is judged as it runs where nobody set PYTHONUNBUFFERED.
func TestJudgeEnvLeavesOutPythonUnbuffered(t *testing.T) {
	got := judgeEnv([]string{"PATH=/bin", "PYTHONUNBUFFERED=1", "HOME=/h"})
	if len(got) != 2 || got[0] != "PATH=/bin" || got[1] != "HOME=/h" {
		t.Fatalf("judgeEnv = %q", got)
	}
}
