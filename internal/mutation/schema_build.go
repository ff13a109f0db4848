package mutation

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// schemaPlan says how each mutant to judge is built: in one of a few
// schema programs, or alone (of == nil) as before.
type schemaPlan struct {
	builds []*schemaBuild
	of     map[int]*schemaBuild
	// uncompilable are the mutants the type checker refuses alone: they
	// are not viable, though never built.
	uncompilable map[int]bool
	// atInit are the mutants switched when the program starts, judged by
	// a process of their own, never on a judging server.
	atInit map[int]bool
}

// schemaBuild is one program: at most one group of non-overlapping sites
// per file.
type schemaBuild struct {
	n     int               // 1-based, recorded in each Result
	sites map[string][]site // by module-relative file, in source order
	pkgs  map[string]string // module-relative folder -> package name
	once  sync.Once
	bin   string
	drop  map[int]bool // sites the compiler refused: built alone
	took  time.Duration
}

// maxSchemaRounds bounds how often a schema is rewritten without the sites
// the type checker or the compiler refused.
const maxSchemaRounds = 8

// planSchemata puts every mutant of ids that can be rewritten safely, and
// compiles alone, into a schema build; the others are built alone.
//
// unreached are mutants no scenario executes, which are never built; the
// type checker still tells which of them do not compile (not viable),
// so that a campaign without carried verdicts does not report them as
// survivors.
//
// decl, when set, tells which package-level constants a schema can switch
// (constSite); nil leaves every one built alone.
func planSchemata(ctx context.Context, j *judge, mutants []Mutant, ids, unreached []int, sources map[string][]byte, decl *declUses) (*schemaPlan, error) {
	var dirs []string
	for _, i := range slices.Concat(ids, unreached) {
		if !slices.Contains(dirs, mutants[i].Package) {
			dirs = append(dirs, mutants[i].Package)
		}
	}
	plan := &schemaPlan{of: map[int]*schemaBuild{}, uncompilable: map[int]bool{}, atInit: map[int]bool{}}
	if len(dirs) == 0 {
		return plan, nil
	}
	env, pkgs, err := loadPackages(ctx, j.goTool, j.root, dirs, sources)
	if err != nil {
		return nil, err
	}
	for _, i := range unreached {
		m := mutants[i]
		p := pkgs[m.Package]
		if p == nil {
			continue
		}
		if mutated, err := m.Apply(sources[m.File]); err != nil || !env.compiles(p, m.File, mutated) {
			plan.uncompilable[i] = true
		}
	}
	index := map[string]*fileIndex{}
	byFile := map[string][]site{}
	for _, i := range ids {
		m := mutants[i]
		p := pkgs[m.Package]
		f, ok := p.asts[m.File]
		if !ok {
			continue
		}
		x := index[m.File]
		if x == nil {
			x = newFileIndex(env.fset, f, sources[m.File], p.info, p.path)
			index[m.File] = x
		}
		if mutated, err := m.Apply(sources[m.File]); err != nil || !env.compiles(p, m.File, mutated) {
			// Not viable: go/types refuses it alone, as the compiler
			// would (a build that can only fail would cost seconds), also
			// when no schema could hold it (20 such alone builds a
			// campaign: a receive removed from a select case, an array
			// length off by one).
			plan.uncompilable[i] = true
			continue
		}
		var s site
		if m.Func == "" && decl.switchable(m.Package, m.File, m.Line, m.Col) {
			s, ok = x.constSite(i, m)
		} else {
			s, ok = x.site(i, m)
		}
		if !ok {
			continue
		}
		if m.Func == "" {
			// Outside any function: evaluated once, when the program
			// starts (a constant made a variable, a variable's
			// initializer), so never on a judging server.
			plan.atInit[i] = true
		}
		byFile[m.File] = append(byFile[m.File], s)
	}
	for file, ss := range byFile {
		for g, group := range partition(ss) {
			for len(plan.builds) <= g {
				plan.builds = append(plan.builds, &schemaBuild{n: len(plan.builds) + 1,
					sites: map[string][]site{}, pkgs: map[string]string{}, drop: map[int]bool{}})
			}
			b := plan.builds[g]
			b.sites[file] = group
			dir := filepath.ToSlash(filepath.Dir(file))
			b.pkgs[dir] = pkgs[dir].name
		}
	}
	for _, b := range plan.builds {
		b.typeCheck(env, pkgs)
		for _, ss := range b.sites {
			for _, s := range ss {
				plan.of[s.id] = b
			}
		}
	}
	return plan, nil
}

// partition splits one file's sites into groups of non-overlapping ones,
// as few as the deepest nesting allows (first fit over sites by start).
func partition(ss []site) [][]site {
	slices.SortFunc(ss, func(a, b site) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	var groups [][]site
	var ends []int
	for _, s := range ss {
		g := slices.IndexFunc(ends, func(e int) bool { return s.start >= e })
		if g < 0 {
			groups, ends = append(groups, nil), append(ends, 0)
			g = len(groups) - 1
		}
		groups[g] = append(groups[g], s)
		ends[g] = s.end
	}
	return groups
}

// render splices a file's sites into src, their tails at its end; outs
// are each site's ranges in the result (its text, then its tail).
func render(src []byte, ss []site) (string, [][][2]int) {
	var b strings.Builder
	outs := make([][][2]int, len(ss))
	at := 0
	for i, s := range ss {
		b.Write(src[at:s.start])
		outs[i] = append(outs[i], [2]int{b.Len(), 0})
		b.WriteString(s.text)
		outs[i][0][1] = b.Len()
		at = s.end
	}
	b.Write(src[at:])
	for i, s := range ss {
		if s.tail != "" {
			outs[i] = append(outs[i], [2]int{b.Len(), b.Len() + len(s.tail)})
			b.WriteString(s.tail)
		}
	}
	return b.String(), outs
}

// refuse takes out of file the sites whose rewritten text holds one of
// offsets (places in the schema as last rendered), or every site of file
// when an offset is in none; it reports whether it took any.
func (b *schemaBuild) refuse(file string, src []byte, offsets []int) bool {
	ss := b.sites[file]
	if len(ss) == 0 || len(offsets) == 0 {
		return false
	}
	_, outs := render(src, ss)
	out := map[int]bool{}
	for _, off := range offsets {
		k := slices.IndexFunc(outs, func(rs [][2]int) bool {
			return slices.ContainsFunc(rs, func(o [2]int) bool { return o[0] <= off && off < o[1] })
		})
		if k < 0 {
			b.refuseAll(file)
			return true
		}
		out[k] = true
	}
	keep := ss[:0:0]
	for k, s := range ss {
		if out[k] {
			b.drop[s.id] = true
		} else {
			keep = append(keep, s)
		}
	}
	b.sites[file] = keep
	return true
}

// typeCheck takes out of b, round by round, every site the type checker
// refuses in its schema (a constant made a call, a type the file cannot
// name): those mutants are built alone.
func (b *schemaBuild) typeCheck(env *typeEnv, pkgs map[string]*srcPackage) {
	for dir := range b.pkgs {
		p := pkgs[dir]
		for range maxSchemaRounds {
			replaced := map[string]*ast.File{}
			sw, _ := parser.ParseFile(env.fset, dir+"/"+switchFile, switchSource(p.name), parser.SkipObjectResolution)
			replaced[dir+"/"+switchFile] = sw
			for _, f := range p.files {
				if ss := b.sites[f]; len(ss) > 0 {
					text, _ := render(env.sources[f], ss)
					af, err := parser.ParseFile(env.fset, f, text, parser.SkipObjectResolution)
					if err != nil {
						b.refuseAll(f)
						continue
					}
					replaced[f] = af
				}
			}
			errs := env.check(p, replaced, nil)
			if len(errs) == 0 {
				break
			}
			offsets := map[string][]int{}
			for _, e := range errs {
				pos := env.fset.Position(e.Pos)
				offsets[pos.Filename] = append(offsets[pos.Filename], pos.Offset)
			}
			for file, offs := range offsets {
				if !b.refuse(file, env.sources[file], offs) {
					b.refusePackage(dir, p)
				}
			}
		}
	}
}

func (b *schemaBuild) refuseAll(file string) {
	for _, s := range b.sites[file] {
		b.drop[s.id] = true
	}
	delete(b.sites, file)
}

func (b *schemaBuild) refusePackage(dir string, p *srcPackage) {
	for _, f := range p.files {
		b.refuseAll(f)
	}
	delete(b.pkgs, dir)
}

// binary builds b once and returns its program, or "" when the mutant
// with index id must be built alone.
func (b *schemaBuild) binary(ctx context.Context, j *judge, sources map[string][]byte, id int) string {
	b.once.Do(func() {
		start := j.now()
		b.bin = b.build(ctx, j, sources)
		b.took = j.now().Sub(start)
	})
	if b.bin == "" || b.drop[id] {
		return ""
	}
	return b.bin
}

var compileError = regexp.MustCompile(`(?m)^(\S+\.go):(\d+):(\d+): `)

func (b *schemaBuild) build(ctx context.Context, j *judge, sources map[string][]byte) string {
	dir := filepath.Join(j.tmp, fmt.Sprintf("schema%d", b.n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	for range maxSchemaRounds {
		replace := map[string]string{}
		back := map[string]string{} // overlay file -> module-relative file
		texts := map[string]string{}
		for file, ss := range b.sites {
			if len(ss) == 0 {
				continue
			}
			text, _ := render(sources[file], ss)
			tmp := filepath.Join(dir, strings.ReplaceAll(file, "/", "__"))
			if os.WriteFile(tmp, []byte(text), 0o644) != nil {
				return ""
			}
			replace[filepath.Join(j.root, file)], back[tmp], texts[file] = tmp, file, text
		}
		if len(replace) == 0 {
			return ""
		}
		for pkg, name := range b.pkgs {
			tmp := filepath.Join(dir, strings.ReplaceAll(pkg, "/", "__")+"__"+switchFile)
			if os.WriteFile(tmp, []byte(switchSource(name)), 0o644) != nil {
				return ""
			}
			replace[filepath.Join(j.root, pkg, switchFile)] = tmp
		}
		if j.servers != nil {
			tmp := filepath.Join(dir, serverFile)
			if os.WriteFile(tmp, []byte(serverSource), 0o644) != nil {
				return ""
			}
			replace[filepath.Join(j.root, j.target, serverFile)] = tmp
		}
		ov, _ := json.Marshal(map[string]map[string]string{"Replace": replace})
		ovFile := filepath.Join(dir, "overlay.json")
		if os.WriteFile(ovFile, ov, 0o644) != nil {
			return ""
		}
		bin := filepath.Join(dir, "conform")
		cmd := exec.CommandContext(ctx, j.goTool, "build", "-o", bin, "-ldflags="+linkFlags, "-overlay", ovFile, j.target)
		cmd.Dir = j.root
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		j.builds.Add(1)
		err := cmd.Run()
		j.buildCPU.Add(int64(cpuOf(cmd.ProcessState)))
		j.tally.add(&j.tally.schemaCPU, cpuOf(cmd.ProcessState))
		j.tally.mu.Lock()
		j.tally.schemaN++
		j.tally.mu.Unlock()
		if err == nil {
			return bin
		}
		if ctx.Err() != nil {
			return ""
		}
		// The type checker passed this schema; the compiler did not.
		// Its errors name the overlay file and a place in it.
		offsets := map[string][]int{}
		for _, e := range compileError.FindAllStringSubmatch(out.String(), -1) {
			if file, ok := back[e[1]]; ok {
				line, _ := strconv.Atoi(e[2])
				col, _ := strconv.Atoi(e[3])
				offsets[file] = append(offsets[file], offsetOf(texts[file], line, col))
			}
		}
		took := false
		for file, offs := range offsets {
			took = b.refuse(file, sources[file], offs) || took
		}
		if !took {
			return ""
		}
	}
	return ""
}

// offsetOf is the byte offset of a 1-based line and column in text.
func offsetOf(text string, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		k := strings.IndexByte(text[off:], '\n')
		if k < 0 {
			return len(text)
		}
		off += k + 1
	}
	return off + col - 1
}
