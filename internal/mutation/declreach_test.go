package mutation

import (
	"context"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const declSrc = `package p

const (
	Base = 3
	A    = Base + iota
	B
)

const Lone = 7

var V = Lone

const Arr = 2

type T [Arr]int

const Unused = 1

const hidden = 4

func f() int { return A }

func g() int { return B * 2 }

var h = func() int { return hidden }
`

// fakeDeclUses indexes declSrc as package p of the tree; escaping says
// whether code outside the tree imports it.
func fakeDeclUses(t *testing.T, escaping bool) *declUses {
	return fakeUsesOf(t, declSrc, escaping)
}

func fakeUsesOf(t *testing.T, src string, escaping bool) *declUses {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p/p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}, Types: map[ast.Expr]types.TypeAndValue{}}
	if _, err := (&types.Config{Importer: importer.Default()}).Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	sp := &srcPackage{path: "p", name: "p", dir: "p", files: []string{"p/p.go"}, asts: map[string]*ast.File{"p/p.go": f}}
	d := &declUses{fset: fset, pkgs: map[string]*srcPackage{"p": sp}, uses: map[objKey][]use{}, escapes: map[string]bool{"p": escaping}}
	d.index(sp, "p/p.go", f, info, map[string]bool{"p": true})
	return d
}

// lineOf is the 1-based line of the first line of declSrc holding s.
func lineOf(t *testing.T, s string) int {
	t.Helper()
	return lineIn(t, declSrc, s)
}

func lineIn(t *testing.T, src, s string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("no %q in the source", s)
	return 0
}

// A package-level declaration is judged by the scenarios that execute a
// use of it in a function, through the constants it feeds (an implicit
// repetition in a group included), and keeps the old scope when a use is
// evaluated outside any function, when nothing uses it, or when it is
// exported from a package imported outside the tree.
func TestPlacesOfAPackageLevelDeclaration(t *testing.T) {
	d := fakeDeclUses(t, false)
	places := func(decl string) ([]int, bool) {
		ps, ok := d.placesOf("p", "p/p.go", lineOf(t, decl), 9)
		var lines []int
		for _, p := range ps {
			lines = append(lines, p.line)
		}
		slices.Sort(lines)
		return lines, ok
	}
	if got, ok := places("Base = 3"); !ok || !slices.Equal(got, []int{lineOf(t, "func f"), lineOf(t, "func g")}) {
		t.Errorf("Base: places on lines %v (%v), want its use in f through A and in g through B's implicit repetition", got, ok)
	}
	if got, ok := places("hidden = 4"); !ok || !slices.Equal(got, []int{lineOf(t, "var h")}) {
		t.Errorf("hidden: %v (%v), want its use in the function literal", got, ok)
	}
	for _, decl := range []string{"Lone = 7", "Arr = 2", "Unused = 1", "var V"} {
		if got, ok := places(decl); ok {
			t.Errorf("%s: places %v, want the old scope (a use outside any function, or none)", decl, got)
		}
	}
	d = fakeDeclUses(t, true)
	if _, ok := d.placesOf("p", "p/p.go", lineOf(t, "Base = 3"), 2); ok {
		t.Error("an exported constant of a package imported outside the tree: its uses there are unknown, want the old scope")
	}
	if _, ok := d.placesOf("p", "p/p.go", lineOf(t, "hidden = 4"), 9); !ok {
		t.Error("an unexported constant is used in its package only, wherever the package is imported")
	}
}

const switchSrc = `package p

// Duration stands for time.Duration: the test imports nothing (make test
// builds with -trimpath, and a test binary so built finds no GOROOT to
// import the standard library from source).
type Duration int64

const Second Duration = 1000

const Plain = 3

const Dur = 2

const Arr = 2

const InConst = 4

const Local = 5

const Key = 1

const Feeds = 6

const Fed = Feeds + 1

const (
	Rep = 7
	Rep2
)

const Typed Duration = 2 * Second

func sleep(Duration) {}

func f(n int) int {
	if n < Plain {
		return Plain
	}
	var d Duration = Dur
	sleep(Typed + d)
	var a [Arr]int
	x := InConst * 2
	const l = Local
	b := [3]int{Key: 1}
	return len(a) + x + l + b[0] + Fed + Rep2
}
`

// A package-level constant is switched as a variable only where every use
// would see the same value of the same type (use.plain): not as part of a
// constant expression, an array length or index, a local constant, an
// untyped constant made another type, nor one feeding or repeated by
// another constant.
func TestSwitchableConstants(t *testing.T) {
	d := fakeUsesOf(t, switchSrc, false)
	for decl, want := range map[string]bool{
		"Plain = 3": true, "Typed Duration": true,
		"Dur = 2": false, "Arr = 2": false, "InConst = 4": false, "Local = 5": false,
		"Key = 1": false, "Feeds = 6": false, "Rep = 7": false,
	} {
		if got := d.switchable("p", "p/p.go", lineIn(t, switchSrc, decl), 7); got != want {
			t.Errorf("%s: switchable %v, want %v", decl, got, want)
		}
	}
}

// On the reference kernel: retry's shipped default retry count is used in
// the tree's functions only.
func TestPlacesOfTheReferenceKernelsDefaults(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	j := &judge{root: root, goTool: goTool, target: "./cmd/conform"}
	d, err := loadDeclUses(context.Background(), j, "refkernel", map[string][]byte{})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := List(root, "refkernel", []string{"refkernel/retry"}, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ms, func(m Mutant) bool { return m.Func == "" && m.Orig == "5" })
	if i < 0 {
		t.Fatal("no package-level mutant of DefaultMaxRetries = 5 in refkernel/retry")
	}
	places, ok := d.placesOf(ms[i].Package, ms[i].File, ms[i].Line, ms[i].Col)
	if !ok || len(places) == 0 {
		t.Fatalf("DefaultMaxRetries: no known places (%v)", ok)
	}
	for _, p := range places {
		if !strings.HasPrefix(p.file, "refkernel/") || !p.inFunc {
			t.Errorf("a place outside the tree's functions: %+v", p)
		}
	}
}
