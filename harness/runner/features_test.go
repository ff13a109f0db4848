package runner

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentconform/conform/features"
	"github.com/agentconform/conform/spec"
)

func TestEmbeddedFeaturesAreValid(t *testing.T) {
	cat, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	files, infos, err := LoadFeatures(features.FS, ".", cat)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 || len(infos) == 0 {
		t.Fatal("no scenarios embedded")
	}
}

// Malformed feature files are rejected with the file, line and reason, all
// defects at once.
func TestBadFeaturesNameFileLineAndReason(t *testing.T) {
	cat, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		"a.feature": {Data: []byte("Feature: a\n\n  @TA-99 @must\n  Scenario: unknown id\n    Given x\n")},
		"b.feature": {Data: []byte("Feature: b\n\n  Scenario: no requirement tag\n    Given x\n")},
		"c.feature": {Data: []byte("Feature: c\n  Scenario: broken\n    Given x\n  | not | a table row |\n  Examples oops\n")},
	}
	_, _, err = LoadFeatures(fsys, ".", cat)
	if err == nil {
		t.Fatal("expected errors")
	}
	for _, want := range []string{"a.feature:4:", "TA-99", "b.feature:3:", "no requirement ID", "c.feature", "not valid Gherkin"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q:\n%v", want, err)
		}
	}
}
