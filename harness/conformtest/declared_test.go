package conformtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agentconform/conform/harness/steps"
)

// stepDecl is one check step of the library and the requirement IDs its
// registration says it proves.
type stepDecl struct {
	pattern *regexp.Regexp
	ids     []string
	where   string
}

// declaredChecks reads every check registration of the step library from
// its source: sc.Step(stepRE(`pattern`), x.proves(fn, "ID", ...)). The loop
// invariants are registered from steps.Invariants. A registration this
// cannot read is an error, so that every declaration stays checkable.
func declaredChecks(t *testing.T) []stepDecl {
	t.Helper()
	files, err := filepath.Glob("../steps/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no step sources: %v", err)
	}
	var out []stepDecl
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !isSel(call.Fun, "Step") || len(call.Args) != 2 {
				return true
			}
			pv, ok := call.Args[1].(*ast.CallExpr)
			if !ok || !isSel(pv.Fun, "proves") {
				return true // a setup step
			}
			where := fset.Position(call.Pos()).String()
			pat, ok := stepPattern(call.Args[0])
			if !ok {
				if strings.Contains(where, "invariants.go") {
					return true // from steps.Invariants, below
				}
				t.Errorf("%s: the pattern of a check is not a literal this test can read", where)
				return true
			}
			d := stepDecl{pattern: regexp.MustCompile(pat), where: where}
			for _, a := range pv.Args[1:] {
				lit, ok := a.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Errorf("%s: a requirement ID of a check is not a literal this test can read", where)
					continue
				}
				id, _ := strconv.Unquote(lit.Value)
				d.ids = append(d.ids, id)
			}
			out = append(out, d)
			return true
		})
	}
	for _, inv := range steps.Invariants {
		out = append(out, stepDecl{pattern: regexp.MustCompile("^" + regexp.QuoteMeta(inv.Text) + "$"), ids: []string{inv.Requirement}, where: "steps.Invariants"})
	}
	return out
}

func isSel(e ast.Expr, name string) bool {
	s, ok := e.(*ast.SelectorExpr)
	return ok && s.Sel.Name == name
}

// stepPattern is the literal of stepRE(`...`).
func stepPattern(e ast.Expr) (string, bool) {
	c, ok := e.(*ast.CallExpr)
	if !ok || len(c.Args) != 1 {
		return "", false
	}
	if id, ok := c.Fun.(*ast.Ident); !ok || id.Name != "stepRE" {
		return "", false
	}
	lit, ok := c.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// declOf is the declaration whose pattern matches a step's text.
func declOf(decls []stepDecl, text string) (stepDecl, error) {
	var found []stepDecl
	for _, d := range decls {
		if d.pattern.MatchString(text) {
			found = append(found, d)
		}
	}
	if len(found) != 1 {
		return stepDecl{}, fmt.Errorf("step %q matches %d check declarations", text, len(found))
	}
	return found[0], nil
}
