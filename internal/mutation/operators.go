package mutation

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
)

// Enumerate lists every mutant of one Go source file, in source order.
// file is the module-relative path, pkg the module-relative folder.
func Enumerate(pkg, file string, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", file, err)
	}
	e := &enumerator{fset: fset, src: src, pkg: pkg, file: file, skip: hintLiterals(f), seen: map[string]int{}}
	for _, d := range f.Decls {
		e.fn = declName(d)
		ast.Inspect(d, e.visit)
	}
	return e.out, nil
}

type enumerator struct {
	fset      *token.FileSet
	src       []byte
	pkg, file string
	fn        string
	skip      map[*ast.BasicLit]bool
	seen      map[string]int
	out       []Mutant
}

var swaps = map[Op]map[token.Token]token.Token{
	Boundary: {token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR},
	Negate:   {token.EQL: token.NEQ, token.NEQ: token.EQL},
	Arith: {token.ADD: token.SUB, token.SUB: token.ADD, token.MUL: token.QUO, token.QUO: token.MUL,
		token.ADD_ASSIGN: token.SUB_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN,
		token.MUL_ASSIGN: token.QUO_ASSIGN, token.QUO_ASSIGN: token.MUL_ASSIGN,
		token.INC: token.DEC, token.DEC: token.INC},
}

func (e *enumerator) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.BinaryExpr:
		for _, op := range []Op{Boundary, Negate, Arith} {
			to, ok := swaps[op][n.Op]
			if !ok || (op == Arith && n.Op == token.ADD && (isString(n.X) || isString(n.Y))) {
				continue
			}
			e.token(op, n.OpPos, n.Op, to)
		}
	case *ast.IfStmt:
		// A comparison for (in)equality is already negated by its operator
		// swap; negating it again would be the same mutant twice.
		if b, ok := ast.Unparen(n.Cond).(*ast.BinaryExpr); !ok || (b.Op != token.EQL && b.Op != token.NEQ) {
			c := e.text(n.Cond)
			e.add(Negate, n.Cond.Pos(), n.Cond.End(), c, "!("+c+")", "!("+c+")")
		}
	case *ast.ExprStmt:
		e.add(RemoveCall, n.Pos(), n.End(), e.text(n), "", "")
	case *ast.AssignStmt:
		if to, ok := swaps[Arith][n.Tok]; ok {
			e.token(Arith, n.TokPos, n.Tok, to)
		}
		if n.Tok != token.DEFINE && !allBlank(n.Lhs) {
			e.add(DropAssign, n.Pos(), n.End(), e.text(n), "", "")
		}
	case *ast.IncDecStmt:
		e.token(Arith, n.TokPos, n.Tok, swaps[Arith][n.Tok])
	case *ast.BasicLit:
		if n.Kind != token.INT || e.skip[n] {
			break
		}
		v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
		if err != nil {
			break // too large for an off-by-one to mean anything
		}
		next := strconv.FormatInt(v+1, 10)
		e.add(Const, n.Pos(), n.End(), n.Value, next, next)
	case *ast.RangeStmt:
		head := e.textRange(n.For, n.Body.Lbrace)
		// The break goes last in the body, at its own nesting level, so
		// it ends this loop after the first element's body has run.
		e.addEdit(LoopCut, n.Pos(), n.Body.Rbrace, n.Body.Rbrace, head, "break after the first element", "\nbreak\n")
	}
	return true
}

func (e *enumerator) token(op Op, pos token.Pos, from, to token.Token) {
	e.add(op, pos, pos+token.Pos(len(from.String())), from.String(), to.String(), to.String())
}

func (e *enumerator) add(op Op, from, to token.Pos, orig, repl, text string) {
	e.addEdit(op, from, from, to, orig, repl, text)
}

// addEdit records a mutant at at whose edit replaces from..to with text.
func (e *enumerator) addEdit(op Op, at, from, to token.Pos, orig, repl, text string) {
	p := e.fset.Position(at)
	m := Mutant{
		Package: e.pkg, File: e.file, Line: p.Line, Col: p.Column, Op: op, Func: e.fn,
		Orig: collapse(orig), Repl: collapse(repl),
		start: e.fset.Position(from).Offset, end: e.fset.Position(to).Offset, text: text,
	}
	id := fmt.Sprintf("%s|%s|%s|%s|%s", m.File, m.Func, m.Op, short(m.Orig), short(m.Repl))
	e.seen[id]++
	m.Key = fmt.Sprintf("%s|%d", id, e.seen[id])
	e.out = append(e.out, m)
}

func (e *enumerator) text(n ast.Node) string { return e.textRange(n.Pos(), n.End()) }

func (e *enumerator) textRange(from, to token.Pos) string {
	return strings.TrimSpace(string(e.src[e.fset.Position(from).Offset:e.fset.Position(to).Offset]))
}

// hintLiterals are the integer literals whose value cannot change what the
// program does: the capacity argument of make for a slice, the size hint of
// make for a map. Mutating them only adds equivalent mutants.
func hintLiterals(f *ast.File) map[*ast.BasicLit]bool {
	skip := map[*ast.BasicLit]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if id, ok := c.Fun.(*ast.Ident); !ok || id.Name != "make" || len(c.Args) < 2 {
			return true
		}
		hint := -1
		switch c.Args[0].(type) {
		case *ast.MapType:
			hint = 1
		case *ast.ArrayType:
			hint = 2
		}
		if hint > 0 && hint < len(c.Args) {
			if lit, ok := c.Args[hint].(*ast.BasicLit); ok {
				skip[lit] = true
			}
		}
		return true
	})
	return skip
}

func declName(d ast.Decl) string {
	fd, ok := d.(*ast.FuncDecl)
	if !ok {
		return ""
	}
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		}
		break
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

func isString(x ast.Expr) bool {
	lit, ok := ast.Unparen(x).(*ast.BasicLit)
	return ok && lit.Kind == token.STRING
}

func allBlank(xs []ast.Expr) bool {
	for _, x := range xs {
		if id, ok := x.(*ast.Ident); !ok || id.Name != "_" {
			return false
		}
	}
	return true
}
