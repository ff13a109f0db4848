package mutation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// A schema build must never change what a mutant's verdict means, so the
// plan type-checks (go/types, the compiler's own rules) both every mutant
// alone — one that does not compile alone is built alone, and the
// compiler calls it not viable as before — and every schema before it is
// built. Imports come from the export data `go list -export` leaves in the
// build cache, so nothing is type-checked from source but the mutated
// packages.

// srcPackage is one mutated package, parsed and type-checked.
type srcPackage struct {
	path, name, dir string // import path, package name, module-relative folder
	files           []string
	asts            map[string]*ast.File // by module-relative file
	info            *types.Info
}

// typeEnv type-checks packages of one module against export data.
type typeEnv struct {
	fset    *token.FileSet
	imp     types.Importer
	sources map[string][]byte // by module-relative file
}

type listedPackage struct {
	ImportPath, Name, Dir, Export string
	GoFiles                       []string
}

// loadPackages lists dirs (module-relative) with their dependencies'
// export data, parses every non-test file and type-checks each package.
func loadPackages(ctx context.Context, goTool, root string, dirs []string, sources map[string][]byte) (*typeEnv, map[string]*srcPackage, error) {
	args := []string{"list", "-export", "-deps", "-json=ImportPath,Name,Dir,Export,GoFiles"}
	for _, d := range dirs {
		args = append(args, "./"+d)
	}
	cmd := exec.CommandContext(ctx, goTool, args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("go list -export: %v: %s", err, firstLines(stderr.String(), 3))
	}
	exports := map[string]string{}
	byDir := map[string]listedPackage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, nil, fmt.Errorf("go list -export: %w", err)
		}
		exports[p.ImportPath] = p.Export
		if rel, err := filepath.Rel(root, p.Dir); err == nil {
			byDir[filepath.ToSlash(rel)] = p
		}
	}
	env := &typeEnv{fset: token.NewFileSet(), sources: sources}
	env.imp = importer.ForCompiler(env.fset, "gc", func(path string) (io.ReadCloser, error) {
		if f := exports[path]; f != "" {
			return os.Open(f)
		}
		return nil, fmt.Errorf("no export data for %s", path)
	})
	pkgs := map[string]*srcPackage{}
	for _, d := range dirs {
		lp, ok := byDir[d]
		if !ok {
			return nil, nil, fmt.Errorf("go list did not list %s", d)
		}
		p := &srcPackage{path: lp.ImportPath, name: lp.Name, dir: d, asts: map[string]*ast.File{}}
		for _, g := range lp.GoFiles {
			rel := d + "/" + g
			src, ok := sources[rel]
			if !ok {
				if src, err = os.ReadFile(filepath.Join(root, rel)); err != nil {
					return nil, nil, err
				}
				sources[rel] = src
			}
			f, err := parser.ParseFile(env.fset, rel, src, parser.SkipObjectResolution)
			if err != nil {
				return nil, nil, err
			}
			p.files = append(p.files, rel)
			p.asts[rel] = f
		}
		p.info = &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Implicits: map[ast.Node]types.Object{}}
		if errs := env.check(p, nil, p.info); len(errs) > 0 {
			return nil, nil, fmt.Errorf("type-check %s: %v", d, errs[0])
		}
		pkgs[d] = p
	}
	return env, pkgs, nil
}

// check type-checks p with some files replaced (by module-relative name)
// and returns every error.
func (e *typeEnv) check(p *srcPackage, replaced map[string]*ast.File, info *types.Info) []types.Error {
	files := make([]*ast.File, 0, len(p.files)+len(replaced))
	for _, f := range p.files {
		if r, ok := replaced[f]; ok {
			files = append(files, r)
			continue
		}
		files = append(files, p.asts[f])
	}
	for name, r := range replaced {
		if _, ok := p.asts[name]; !ok {
			files = append(files, r) // an added file: the switch
		}
	}
	var errs []types.Error
	conf := types.Config{Importer: e.imp, Error: func(err error) {
		var te types.Error
		if errors.As(err, &te) {
			errs = append(errs, te)
		}
	}}
	_, _ = conf.Check(p.path, e.fset, files, info)
	return errs
}

// compiles reports whether p compiles with file's text replaced by src.
func (e *typeEnv) compiles(p *srcPackage, file string, src []byte) bool {
	f, err := parser.ParseFile(e.fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		return false
	}
	return len(e.check(p, map[string]*ast.File{file: f}, nil)) == 0
}
