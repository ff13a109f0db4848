package mutation

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTagFeaturesNamesReportLines: a scenario without tags gets a tag line
// of its own in the copy, which moves the scenarios after it; the map
// names the copy's lines, example rows included, as conform's report does.
func TestTagFeaturesNamesReportLines(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	feature := "Feature: f\n\n  Scenario: untagged\n    Given x\n\n  @TA-01\n  Scenario Outline: rows\n    Given <v>\n    Examples:\n      | v |\n      | 1 |\n"
	if err := os.WriteFile(filepath.Join(src, "a.feature"), []byte(feature), 0o644); err != nil {
		t.Fatal(err)
	}
	tags, err := TagFeatures(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	// In the copy the untagged scenario is on line 4 and the outline on 8,
	// its example row on 12.
	for line, want := range map[string]string{"a.feature:4": "@mut_s1", "a.feature:8": "@mut_s2", "a.feature:12": "@mut_s2"} {
		if tags[line] != want {
			t.Errorf("%s: %q, want %q (all: %v)", line, tags[line], want, tags)
		}
	}
}
