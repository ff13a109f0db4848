package mutation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os"
	"os/exec"
)

// Judging every mutant takes hours of worker time. A campaign may carry
// verdicts from an earlier one instead of judging those mutants again, but
// only where nothing the verdict rests on changed: the same mutant (key)
// inside a declaration whose source is byte for byte what it was at the
// earlier commit, and only verdicts that stay true as the suite grows (a
// kill, a mutant that does not compile, or a survivor the committed list
// calls equivalent: it behaves as the original, so no check can see it).
// Every other survivor is judged again: a new check or a newly declared
// reading may kill an open reading or a not observable one, and a legal
// variant that a new check kills is a false failure to hear about; so is
// everything in changed code. The suite also changes between campaigns, so a seeded
// sample of the carried kills is judged again and every disagreement is
// reported: the figure that says how far the carried verdicts can be
// trusted.

// Carry names an earlier campaign's report and how much of it to check.
type Carry struct {
	Report  string // path of the earlier mutation.json
	Recheck int    // carried kills judged again (a seeded sample)
}

type carried struct {
	commit  string
	byKey   map[string]Result
	sources map[string][]byte // file at the earlier commit, by path
}

func loadCarry(root string, c Carry) (*carried, error) {
	b, err := os.ReadFile(c.Report)
	if err != nil {
		return nil, err
	}
	var prev struct {
		Commit  string   `json:"commit"`
		Mutants []Result `json:"mutants"`
	}
	if err := json.Unmarshal(b, &prev); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Report, err)
	}
	if prev.Commit == "" {
		return nil, fmt.Errorf("%s names no commit, so its sources cannot be compared", c.Report)
	}
	out := &carried{commit: prev.Commit, byKey: map[string]Result{}, sources: map[string][]byte{}}
	for _, r := range prev.Mutants {
		out.byKey[r.Key] = r
	}
	for _, r := range prev.Mutants {
		if _, ok := out.sources[r.File]; ok {
			continue
		}
		cmd := exec.Command("git", "show", prev.Commit+":"+r.File)
		cmd.Dir = root
		src, err := cmd.Output()
		if err != nil {
			src = nil // the file is gone: nothing in it is carried
		}
		out.sources[r.File] = src
	}
	return out, nil
}

// take returns the earlier verdict for m when it may be carried.
func (c *carried) take(m Mutant, now []byte, classes map[string]Classification) (Result, bool) {
	if c == nil {
		return Result{}, false
	}
	r, ok := c.byKey[m.Key]
	if !ok {
		return Result{}, false
	}
	switch r.Status {
	case Killed, Crashed, TimedOut:
		// A kill of a mutant the committed list classifies as a survivor
		// contradicts the list: a check changed since, one way or the
		// other, so it is judged again.
		if _, listed := classes[m.Key]; listed {
			return Result{}, false
		}
	case NotViable:
	case Survived:
		cl, ok := classes[m.Key]
		if !ok || cl.Class != Equivalent {
			return Result{}, false
		}
	default:
		return Result{}, false
	}
	cur := declSource(now, m.Func)
	if cur == nil || !bytes.Equal(declSource(c.sources[m.File], m.Func), cur) {
		return Result{}, false
	}
	out := Result{Mutant: m, Status: r.Status, Failing: r.Failing, Scope: r.Scope, Detail: r.Detail,
		Millis: r.Millis, BuildMillis: r.BuildMillis, CarriedFrom: c.commit}
	return out, true
}

// declSource is the source of the declaration named fn ("" for the whole
// file), or nil when the file does not parse or has no such declaration.
func declSource(src []byte, fn string) []byte {
	if fn == "" {
		return src
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && declName(fd) == fn {
			return src[fset.Position(fd.Pos()).Offset:fset.Position(fd.End()).Offset]
		}
	}
	return nil
}

// recheckSample picks n of the carried kills, seeded, to judge again.
func recheckSample(results []Result, n int, seed uint64) map[int]bool {
	var idx []int
	for i, r := range results {
		if r.CarriedFrom != "" && r.Status.IsKill() {
			idx = append(idx, i)
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	out := map[int]bool{}
	for _, i := range idx[:min(n, len(idx))] {
		out[i] = true
	}
	return out
}
