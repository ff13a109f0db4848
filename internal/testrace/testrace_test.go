package testrace

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A test skipped under -race must run somewhere else: every package that
// calls SkipUnderRace is named in the Makefile's E2E_PKGS, which make e2e runs
// without -race.
func TestEveryEndToEndPackageRunsInE2E(t *testing.T) {
	root := filepath.Join("..", "..")
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^E2E_PKGS\s*:?=((?:.*\\\n)*.*)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("the Makefile has no E2E_PKGS")
	}
	listed := map[string]bool{}
	for _, p := range strings.Fields(strings.ReplaceAll(string(m[1]), "\\", " ")) {
		listed[strings.TrimSuffix(strings.TrimPrefix(p, "./"), "/")] = true
	}
	found := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") || filepath.Base(filepath.Dir(path)) == "testrace" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Contains(b, []byte("testrace.SkipUnderRace(")) {
			return nil
		}
		found++
		pkg, _ := filepath.Rel(root, filepath.Dir(path))
		if !listed[filepath.ToSlash(pkg)] {
			t.Errorf("%s calls testrace.SkipUnderRace, but ./%s is not in the Makefile's E2E_PKGS: the test would run nowhere", path, filepath.ToSlash(pkg))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Error("no test calls testrace.SkipUnderRace: the scan looks in the wrong place")
	}
}
