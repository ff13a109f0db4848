package mutation

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os/exec"
	"slices"
	"strings"
)

// Reach of a package-level declaration (a constant off by one in
// `const MaxAsks = 3`): no scenario's coverage holds it, since it is
// evaluated at compile time or at init, so such a mutant used to be
// judged by its package's scenarios and then by the whole suite (about 20
// CPU s each, 12 mutants a campaign). What the declaration gives a value
// to is seen only where a function names it: the mutant is judged by the
// scenarios that execute a statement using it, through other constants
// it feeds. That holds only when every use is known; the mutant keeps the
// old scope when a use is evaluated outside any function (another
// package-level variable's initializer, an array length), or when it is
// exported from a package that code outside the mutated tree imports
// (conform's own packages, type-checked from export data, are not
// searched).

// objKey names a package-level constant or variable across packages: a
// package type-checked from source and one imported from export data give
// the same declaration different types.Objects.
type objKey struct{ pkg, name string }

// use is where an identifier names a package-level constant or variable.
type use struct {
	file      string // module-relative
	line, col int
	inFunc    bool
	// plain: in a function, the use takes the constant's value as a
	// value of its default type, outside any constant expression, array
	// length or local constant: a variable of that type holding the same
	// value would give the function the same values (switchable).
	plain bool
	// feeds, when the use is outside any function, are the package-level
	// constants whose value it is part of (nil: something else, such as
	// a variable's initializer or a type, which every scenario may see).
	feeds []objKey
}

// declUses indexes the uses of every package-level constant and variable
// of the mutated tree, and the declarations that hold each place.
type declUses struct {
	fset    *token.FileSet
	pkgs    map[string]*srcPackage // by module-relative folder
	uses    map[objKey][]use
	escapes map[string]bool // import paths code outside the tree imports
}

// loadDeclUses type-checks every package of the tree from source and
// indexes its uses; escapes come from the packages the judged program
// links.
func loadDeclUses(ctx context.Context, j *judge, tree string, sources map[string][]byte) (*declUses, error) {
	all, err := Discover(j.root, tree)
	if err != nil {
		return nil, err
	}
	dirs := make([]string, len(all))
	for i, p := range all {
		dirs[i] = p.Dir
	}
	env, pkgs, err := loadPackages(ctx, j.goTool, j.root, dirs, sources)
	if err != nil {
		return nil, err
	}
	d := &declUses{fset: env.fset, pkgs: pkgs, uses: map[objKey][]use{}, escapes: map[string]bool{}}
	inTree := map[string]bool{}
	for _, p := range pkgs {
		inTree[p.path] = true
	}
	if d.escapes, err = importedFromOutside(ctx, j, inTree); err != nil {
		return nil, err
	}
	for _, p := range pkgs {
		info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}, Types: map[ast.Expr]types.TypeAndValue{}}
		if errs := env.check(p, nil, info); len(errs) > 0 {
			return nil, fmt.Errorf("type-check %s: %v", p.dir, errs[0])
		}
		for _, file := range p.files {
			d.index(p, file, p.asts[file], info, inTree)
		}
	}
	return d, nil
}

// importedFromOutside lists the tree's packages that a package the judged
// program (j.target, conform) links, outside the tree, imports.
func importedFromOutside(ctx context.Context, j *judge, inTree map[string]bool) (map[string]bool, error) {
	cmd := exec.CommandContext(ctx, j.goTool, "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", j.target)
	cmd.Dir = j.root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps %s: %v: %s", j.target, err, firstLines(stderr.String(), 3))
	}
	escapes := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || inTree[f[0]] {
			continue
		}
		for _, imp := range f[1:] {
			if inTree[imp] {
				escapes[imp] = true
			}
		}
	}
	return escapes, sc.Err()
}

// index records every use in f of a package-level constant or variable of
// the tree.
func (d *declUses) index(p *srcPackage, file string, f *ast.File, info *types.Info, inTree map[string]bool) {
	visit := func(n ast.Node, feeds []objKey) {
		var stack []ast.Node
		ast.Inspect(n, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			key, ok := packageLevel(info.Uses[id], inTree)
			if !ok {
				return true
			}
			pos := d.fset.Position(id.Pos())
			u := use{file: file, line: pos.Line, col: pos.Column, inFunc: inFunction(stack)}
			if !u.inFunc {
				u.feeds = feeds
			} else {
				u.plain = plainUse(stack, info)
			}
			d.uses[key] = append(d.uses[key], u)
			return true
		})
	}
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			visit(decl, nil)
			continue
		}
		for i, spec := range g.Specs {
			visit(spec, specKeys(p.path, g, i))
		}
	}
}

// specKeys names what spec i of a const or var declaration declares: its
// names and, in a constant group, those of the specs after it that repeat
// its values implicitly (`A = Base + iota; B`: B uses Base too).
func specKeys(pkg string, g *ast.GenDecl, i int) []objKey {
	var keys []objKey
	for _, n := range g.Specs[i].(*ast.ValueSpec).Names {
		keys = append(keys, objKey{pkg, n.Name})
	}
	for _, next := range g.Specs[i+1:] {
		nv := next.(*ast.ValueSpec)
		if g.Tok != token.CONST || nv.Values != nil {
			break
		}
		for _, n := range nv.Names {
			keys = append(keys, objKey{pkg, n.Name})
		}
	}
	return keys
}

// packageLevel says whether obj is a constant or variable declared at
// package level in the tree, and names it.
func packageLevel(obj types.Object, inTree map[string]bool) (objKey, bool) {
	switch obj.(type) {
	case *types.Const, *types.Var:
	default:
		return objKey{}, false
	}
	if obj.Pkg() == nil || !inTree[obj.Pkg().Path()] || obj.Parent() != obj.Pkg().Scope() {
		return objKey{}, false
	}
	return objKey{obj.Pkg().Path(), obj.Name()}, true
}

// plainUse says whether the identifier on top of stack, a use of a
// package-level constant in a function, is a plain use (use.plain).
func plainUse(stack []ast.Node, info *types.Info) bool {
	id := stack[len(stack)-1].(*ast.Ident)
	obj, ok := info.Uses[id].(*types.Const)
	if !ok {
		return false
	}
	var e ast.Expr = id
	k := len(stack) - 2
	if sel, ok := stack[k].(*ast.SelectorExpr); ok && sel.Sel == id {
		e, k = sel, k-1 // retry.MaxReductions
	}
	if tv, ok := info.Types[e]; !ok || !types.Identical(tv.Type, types.Default(obj.Type())) {
		return false // an untyped constant made a float, a duration
	}
	parent := true
	for ; k >= 0; k-- {
		switch n := stack[k].(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return true
		case *ast.ArrayType:
			return false
		case *ast.KeyValueExpr:
			if parent && n.Key == e {
				return false // an array literal's index must be constant
			}
		case *ast.GenDecl:
			if n.Tok == token.CONST {
				return false
			}
		case *ast.ParenExpr:
		case ast.Expr:
			if parent {
				if tv, ok := info.Types[n]; ok && tv.Value != nil {
					return false // part of a constant expression
				}
				parent = false
			}
		}
	}
	return true
}

// switchable says whether the package-level declaration holding
// file:line:col is one constant, repeated by no spec after it, whose every
// use is a plain one (use.plain), known to the index (placesOf): a
// variable holding its value, or its mutated value, gives every function
// the same values the constant would.
func (d *declUses) switchable(dir, file string, line, col int) bool {
	if d == nil {
		return false
	}
	p := d.pkgs[dir]
	if p == nil || p.asts[file] == nil {
		return false
	}
	keys := d.declaredAt(p, p.asts[file], line, col)
	if len(keys) != 1 {
		return false
	}
	if _, ok := d.placesOf(dir, file, line, col); !ok {
		return false
	}
	for _, u := range d.uses[keys[0]] {
		if !u.inFunc || !u.plain {
			return false // it feeds another constant, or an array length
		}
	}
	return true
}

// inFunction says whether the innermost node of stack is inside a
// function (a declared function or a function literal anywhere).
func inFunction(stack []ast.Node) bool {
	for _, n := range stack {
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			return true
		}
	}
	return false
}

// placesOf lists the places in functions where what the package-level
// declaration holding file:line:col gives a value to is used, directly or
// through the constants it feeds; ok is false when a use is outside any
// function and feeds no constant, when the declaration is exported from a
// package imported outside the tree, when there is no such declaration,
// or when nothing uses it (nothing would then say where it matters).
func (d *declUses) placesOf(dir, file string, line, col int) (places []use, ok bool) {
	p := d.pkgs[dir]
	if p == nil || p.asts[file] == nil {
		return nil, false
	}
	keys := d.declaredAt(p, p.asts[file], line, col)
	if len(keys) == 0 {
		return nil, false
	}
	seen := map[objKey]bool{}
	for len(keys) > 0 {
		k := keys[0]
		keys = keys[1:]
		if seen[k] {
			continue
		}
		seen[k] = true
		if token.IsExported(k.name) && d.escapes[k.pkg] {
			return nil, false
		}
		for _, u := range d.uses[k] {
			switch {
			case u.inFunc:
				places = append(places, u)
			case u.feeds != nil:
				keys = append(keys, u.feeds...)
			default:
				return nil, false
			}
		}
	}
	return places, len(places) > 0
}

// declaredAt names what the package-level value spec holding line:col
// declares (specKeys).
func (d *declUses) declaredAt(p *srcPackage, f *ast.File, line, col int) []objKey {
	at := func(n ast.Node) bool {
		s, e := d.fset.Position(n.Pos()), d.fset.Position(n.End())
		return coverBlock{l0: s.Line, c0: s.Column, l1: e.Line, c1: e.Column}.contains(line, col)
	}
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || (g.Tok != token.CONST && g.Tok != token.VAR) || !at(g) {
			continue
		}
		for i, spec := range g.Specs {
			if at(spec) {
				return specKeys(p.path, g, i)
			}
		}
	}
	return nil
}

// declarationUses indexes the uses of the tree's package-level
// declarations when per-scenario reach is known and some mutant to judge
// is at package level; nil otherwise.
func declarationUses(ctx context.Context, j *judge, cfg Config, cov *reach, mutants []Mutant, pre []Result, sources map[string][]byte) (*declUses, error) {
	if cov == nil || cov.units == nil || cfg.Plugin != nil {
		return nil, nil
	}
	for i, m := range mutants {
		if m.Func == "" && pre[i].CarriedFrom == "" {
			return loadDeclUses(ctx, j, cfg.Tree, sources)
		}
	}
	return nil, nil
}

// reachingUses lists the scenarios that execute a use of what the
// package-level declaration at m's place gives a value to (placesOf);
// none when not every use is known.
func (r *reach) reachingUses(d *declUses, m Mutant, sources map[string][]byte) []int {
	places, ok := d.placesOf(m.Package, m.File, m.Line, m.Col)
	if !ok {
		return nil
	}
	var us []int
	for _, u := range places {
		us = append(us, r.reaching(u.file, u.line, u.col, sources[u.file])...)
	}
	slices.Sort(us)
	return slices.Compact(us)
}
