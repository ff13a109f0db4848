package testrace

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// otherTargets are the tests that skip under -race and run in a make target
// of their own instead of make e2e (each is part of make test or make
// test-mutants, which CI runs after it), or that
// skip without -race (they run only under it, in make unit).
var otherTargets = map[string]string{
	"refkernel/mutants.TestKillMatrix":                            "make mutants",
	"refplugin/mutants.TestKillMatrix":                            "make plugin-mutants",
	"refplugin/mutants.TestReferenceIsClean":                      "make plugin-mutants",
	"refplugin/model/mutants.TestKillMatrix":                      "make plugin-mutants",
	"refplugin/model/mutants.TestReferenceAndVariantsAreClean":    "make plugin-mutants",
	"refplugin/refcontext/mutants.TestKillMatrix":                 "make plugin-mutants",
	"refplugin/refcontext/mutants.TestVariantsPass":               "make plugin-mutants",
	"refplugin/refmemory/mutants.TestKillMatrix":                  "make plugin-mutants",
	"refplugin/refmemory/mutants.TestVariantsPass":                "make plugin-mutants",
	"harness/conformtest.TestReferenceKernelConcurrencyUnderRace": "make unit (it skips without -race)",
}

// makeList reads a Makefile variable's words (continuation lines joined).
func makeList(t *testing.T, mk []byte, name string) []string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + `\s*:?=((?:.*\\\n)*.*)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatalf("the Makefile has no %s", name)
	}
	var out []string
	for _, p := range strings.Fields(strings.ReplaceAll(string(m[1]), "\\", " ")) {
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(p, "./"), "/"))
	}
	return out
}

// A test skipped under -race must run somewhere else. make e2e runs, without
// -race, the packages in the Makefile's E2E_PKGS but only the tests named in
// E2E_TESTS (make unit already ran every other test of those packages under
// the detector; running them again would only cost time). So every test
// that calls SkipUnderRace, or reads a raceEnabled constant or
// testrace.Enabled, is in a package of E2E_PKGS and named in E2E_TESTS, or
// runs in another target (otherTargets); and only a test function itself
// may decide that, so that this scan sees every such test.
func TestEveryEndToEndPackageRunsInE2E(t *testing.T) {
	root := filepath.Join("..", "..")
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	pkgs := makeList(t, mk, "E2E_PKGS")
	tests := makeList(t, mk, "E2E_TESTS")
	seen := map[string]bool{}
	found := 0
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") || filepath.Base(filepath.Dir(path)) == "testrace" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := filepath.ToSlash(rel)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || !readsRace(fn) {
				continue
			}
			name := fn.Name.Name
			isTest := fn.Recv == nil && (strings.HasPrefix(name, "Test") || strings.HasPrefix(name, "Fuzz"))
			switch {
			case !isTest:
				t.Errorf("%s: %s decides on the race detector; only a test function may (call SkipUnderRace from the test itself), or this scan cannot see which tests make e2e must run", path, name)
			case otherTargets[pkg+"."+name] != "":
				seen[pkg+"."+name] = true
			default:
				found++
				if !slices.Contains(pkgs, pkg) {
					t.Errorf("%s: %s skips under -race, but ./%s is not in the Makefile's E2E_PKGS: the test would run nowhere", path, name, pkg)
				}
				if !slices.Contains(tests, name) {
					t.Errorf("%s: %s skips under -race, but it is not in the Makefile's E2E_TESTS: the test would run nowhere", path, name)
				}
				seen[name] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Error("no test calls testrace.SkipUnderRace: the scan looks in the wrong place")
	}
	for _, name := range tests {
		if !seen[name] {
			t.Errorf("the Makefile's E2E_TESTS names %s, which no test of E2E_PKGS that skips under -race is called", name)
		}
	}
	for k := range otherTargets {
		if !seen[k] {
			t.Errorf("otherTargets names %s, which no test that reads the race detector is called", k)
		}
	}
}

// readsRace reports whether fn calls SkipUnderRace or reads raceEnabled or
// testrace.Enabled.
func readsRace(fn *ast.FuncDecl) bool {
	if fn.Body == nil {
		return false
	}
	hit := false
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Ident:
			if x.Name == "raceEnabled" || x.Name == "SkipUnderRace" {
				hit = true
			}
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && id.Name == "testrace" && x.Sel.Name == "Enabled" {
				hit = true
			}
		}
		return !hit
	})
	return hit
}

// Every go test that make test or make test-mutants runs sets its own -timeout: go test's
// default of 10 minutes is a hang guard, and on a busy machine the kill
// matrix went past it with nothing hung and failed make test.
func TestMakeTestGoTestsSetATimeout(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, list := range []string{"test-steps", "test-mutants-steps"} { // make test, and make test-mutants CI runs after it
		m := regexp.MustCompile(`(?m)^` + list + `:(.*)$`).FindSubmatch(mk)
		if m == nil {
			t.Fatalf("the Makefile has no %s target", list)
		}
		steps = append(steps, strings.Fields(string(m[1]))...)
	}
	recipes := map[string][]string{}
	target := ""
	for _, line := range strings.Split(string(mk), "\n") {
		switch {
		case strings.HasPrefix(line, "\t"):
			if target != "" {
				recipes[target] = append(recipes[target], line)
			}
		case strings.Contains(line, ":") && !strings.ContainsAny(line[:strings.Index(line, ":")], " =$#"):
			target = line[:strings.Index(line, ":")]
		default:
			target = ""
		}
	}
	n := 0
	for _, step := range steps {
		for _, line := range recipes[step] {
			if strings.Contains(line, "$(GO) test") {
				n++
				if !strings.Contains(line, "-timeout $(TEST_TIMEOUT)") {
					t.Errorf("make %s runs go test without -timeout $(TEST_TIMEOUT): %s", step, strings.TrimSpace(line))
				}
			}
		}
	}
	if n == 0 {
		t.Error("no go test found in make test's steps: the scan looks in the wrong place")
	}
}

// CI runs make test and then make test-mutants, the suite's own tests by
// mutation that make test leaves out to stay short: moving a step between
// the two never takes it out of CI.
func TestCIRunsMakeTestAndTestMutants(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		lines[strings.TrimPrefix(strings.TrimSpace(l), "time ")] = true
	}
	for _, want := range []string{"make test", "make test-mutants"} {
		if !lines[want] {
			t.Errorf(".ci/run has no line %q", want)
		}
	}
}
