package kitmutation

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agentconform/conform/internal/mutation"
)

//go:embed pymutate.py
var pymutate []byte

//go:embed pyreach.py
var pyreach []byte

//go:embed nodereach.mjs
var nodereach []byte

// Kit is one adapter kit and the judges of its mutants.
type Kit struct {
	Name  string // report folder suffix: pythonkit, nodekit
	Title string // for the report: "Python kit"
	Dir   string // module-relative folder of the kit
	// Files are the mutated files, relative to Dir.
	Files []string
	// Copy are the other files of Dir the judges run (kernels, the
	// self-test), copied beside each mutant.
	Copy []string
	// Kernels are the kernels built on the kit, toy first, each an argv
	// relative to the working copy.
	Kernels []Kernel
	// SelfTest is the kit's self-test, run in the working copy with
	// CONFORM_KIT_TRANSCRIPT set.
	SelfTest []string
	node     bool
}

// Kernel is one kernel on the kit.
type Kernel struct {
	Name string
	Argv []string
}

// Python and Node are the two kits.
var (
	Python = Kit{Name: "pythonkit", Title: "Python kit", Dir: "examples/python-kit", Files: []string{"conform_kit.py"},
		Copy:     []string{"toy_kernel.py", "full_kernel.py", "test_conform_kit.py"},
		Kernels:  []Kernel{{"toy", []string{"python3", "toy_kernel.py"}}, {"full", []string{"python3", "full_kernel.py"}}},
		SelfTest: []string{"python3", "-m", "unittest", "discover", "-s", "."}}
	Node = Kit{Name: "nodekit", Title: "Node kit", Dir: "examples/node-kit", Files: []string{"kit.mjs", "session.mjs", "helpers.mjs", "conn.mjs"},
		Copy:     []string{"toy.mjs", "full.mjs", "kit.test.mjs", "package.json"},
		Kernels:  []Kernel{{"toy", []string{"node", "toy.mjs"}}, {"full", []string{"node", "full.mjs"}}},
		SelfTest: []string{"node", "--test", "kit.test.mjs"}, node: true}
)

// mutant is one mutant of a kit: its description for the report, and how
// to switch it on (a Python mutant's edit, a Node mutant's Stryker id).
type mutant struct {
	mutation.Mutant
	id         string // Stryker's mutant id (Node)
	start, end int    // the edit (Python)
	text       string
	notViable  string
}

// pyMutant is one line of pymutate.py's output.
type pyMutant struct {
	Line, Col  int
	Op, Func   string
	Orig, Repl string
	Start, End int
	Text       string
	NotViable  string `json:"not_viable"`
}

type pos struct{ Line, Column int }

// strykerMutant is one mutant of nodeinstrument's output.
type strykerMutant struct {
	ID    string `json:"id"`
	File  string `json:"file"`
	Op    string `json:"op"`
	Repl  string `json:"repl"`
	Start pos    `json:"start"`
	End   pos    `json:"end"`
}

// listPython runs pymutate.py over the kit's file.
func listPython(ctx context.Context, root, tmp string, k Kit) ([]mutant, error) {
	script := filepath.Join(tmp, "pymutate.py")
	if err := os.WriteFile(script, pymutate, 0o644); err != nil {
		return nil, err
	}
	var out []mutant
	for _, f := range k.Files {
		rel := filepath.ToSlash(filepath.Join(k.Dir, f))
		b, err := exec.CommandContext(ctx, "python3", script, filepath.Join(root, rel)).Output()
		if err != nil {
			return nil, fmt.Errorf("pymutate %s: %w", rel, err)
		}
		var ms []pyMutant
		if err := json.Unmarshal(b, &ms); err != nil {
			return nil, err
		}
		for _, m := range ms {
			out = append(out, mutant{Mutant: mutation.Mutant{Package: k.Dir, File: rel, Line: m.Line, Col: m.Col,
				Op: mutation.Op(m.Op), Func: m.Func, Orig: m.Orig, Repl: m.Repl}, start: m.Start, end: m.End, text: m.Text, notViable: m.NotViable})
		}
	}
	keyed(out)
	return out, nil
}

// Excluded are the Stryker mutators left out: StringLiteral turns a string
// into "" (or "" into "Stryker was here!"); internal/mutation has no
// string operator, and most of the kit's strings are log and error
// messages no requirement constrains, so it would mostly add not
// observable survivors to a count the Go campaigns do not make. The rest
// of Stryker's mutators (conditions, operators, blocks, literals, calls,
// optional chaining, arrays and objects emptied) are judged.
var Excluded = []string{"StringLiteral"}

// listNode instruments the kit with Stryker into work and lists its
// mutants.
func listNode(ctx context.Context, root, work string, k Kit) ([]mutant, error) {
	dir := filepath.Join(root, k.Dir)
	tool := filepath.Join(dir, "mutation", "instrument.mjs")
	if _, err := os.Stat(filepath.Join(dir, "mutation", "node_modules", "@stryker-mutator", "instrumenter")); err != nil {
		return nil, fmt.Errorf("Stryker is not installed: run npm ci in %s/mutation (make mutation-nodekit does)", k.Dir)
	}
	args := append([]string{tool, work}, k.Files...)
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KIT_EXCLUDED="+strings.Join(Excluded, ","))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("instrument: %w\n%s", err, stderr.String())
	}
	var ms []strykerMutant
	if err := json.Unmarshal(b, &ms); err != nil {
		return nil, err
	}
	srcs := map[string][]string{}
	for _, f := range k.Files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			return nil, err
		}
		srcs[f] = strings.Split(string(b), "\n")
	}
	var out []mutant
	for _, m := range ms {
		rel := filepath.ToSlash(filepath.Join(k.Dir, m.File))
		out = append(out, mutant{Mutant: mutation.Mutant{Package: k.Dir, File: rel, Line: m.Start.Line + 1, Col: m.Start.Column + 1,
			Op: mutation.Op(m.Op), Orig: collapse(slice(srcs[m.File], m.Start, m.End)), Repl: collapse(m.Repl)}, id: m.ID})
	}
	keyed(out)
	return out, nil
}

// slice is the source text between two Stryker positions (0-based lines
// and columns).
func slice(lines []string, a, b pos) string {
	if a.Line < 0 || b.Line >= len(lines) || a.Line > b.Line {
		return ""
	}
	if a.Line == b.Line {
		l := lines[a.Line]
		return l[min(a.Column, len(l)):min(b.Column, len(l))]
	}
	parts := []string{lines[a.Line][min(a.Column, len(lines[a.Line])):]}
	parts = append(parts, lines[a.Line+1:b.Line]...)
	last := lines[b.Line]
	return strings.Join(append(parts, last[:min(b.Column, len(last))]), "\n")
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// keyed gives every mutant the key its classification is filed under: the
// file, enclosing function, operator and texts, and the how-manieth such
// mutant it is, without the line, so that an edit elsewhere keeps it.
func keyed(ms []mutant) {
	seen := map[string]int{}
	for i := range ms {
		m := &ms[i].Mutant
		base := strings.Join([]string{m.File, m.Func, string(m.Op), m.Orig, m.Repl}, "|")
		seen[base]++
		m.Key = base + "|" + strconv.Itoa(seen[base])
	}
}

// copyFiles copies files of the kit's folder into dst.
func copyFiles(root string, k Kit, dst string, files []string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, k.Dir, f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// mutantDir writes a Python mutant's folder: the mutated kit file beside
// copies of the kernels and the self-test.
func mutantDir(root string, k Kit, dst string, m mutant) error {
	if err := copyFiles(root, k, dst, k.Copy); err != nil {
		return err
	}
	rel, _ := filepath.Rel(k.Dir, m.File)
	src, err := os.ReadFile(filepath.Join(root, m.File))
	if err != nil {
		return err
	}
	if m.start < 0 || m.end > len(src) || m.start > m.end {
		return fmt.Errorf("mutant %s: edit outside the file", m.Key)
	}
	out := slices.Concat(src[:m.start], []byte(m.text), src[m.end:])
	for _, f := range k.Files {
		b := out
		if f != rel {
			if b, err = os.ReadFile(filepath.Join(root, k.Dir, f)); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
