package mutation

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRequirementIDs(t *testing.T) {
	doc := `// serves TA-02 and (TA-19), DF-01…DF-03, SA-14 to SA-16; HD-05.
// Readings: A-07, A-13 are not requirements; neither is XTA-01.`
	want := []string{"DF-01", "DF-02", "DF-03", "HD-05", "SA-14", "SA-15", "SA-16", "TA-02", "TA-19"}
	if d := cmp.Diff(want, RequirementIDs(doc)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestDiscoverSkipsTestsMutantsAndFakes(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"refkernel/a/doc.go":                     "// Package a serves TA-01.\npackage a\n",
		"refkernel/a/a.go":                       "package a\n",
		"refkernel/a/a_test.go":                  "package a\n",
		"refkernel/mutants/m.go":                 "package mutants\n",
		"refkernel/internal/fakehost/f.go":       "package fakehost\n",
		"refkernel/internal/canon/canon.go":      "package canon\n",
		"refkernel/subagent/testdata/x/x.go":     "package x\n",
		"refkernel/internal/canon/canon_test.go": "package canon\n",
	}
	for f, s := range files {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Discover(root, "refkernel")
	if err != nil {
		t.Fatal(err)
	}
	want := []Package{
		{Dir: "refkernel/a", Files: []string{"refkernel/a/a.go", "refkernel/a/doc.go"}, Requirements: []string{"TA-01"}},
		{Dir: "refkernel/internal/canon", Files: []string{"refkernel/internal/canon/canon.go"}, Requirements: []string{}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got[1].Tags() != "" || got[0].Tags() != "@TA-01" {
		t.Errorf("tags %q %q", got[0].Tags(), got[1].Tags())
	}
}
