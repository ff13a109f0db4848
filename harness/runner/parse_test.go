package runner

import (
	"fmt"
	"slices"
	"testing"
)

// A content is parsed once, the same document comes back, and the memo
// stops growing at its bound.
func TestParseGherkinOncePerContent(t *testing.T) {
	data := []byte("Feature: memo\n  Scenario: one\n    Given a step\n")
	a, err := parseGherkin(data)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := parseGherkin(append([]byte(nil), data...)); b != a {
		t.Error("the same content was parsed again")
	}
	if _, err := parseGherkin([]byte("# language: xx-unknown\nFeature: x\n")); err == nil {
		t.Error("a malformed document parsed")
	}
	for i := range maxParsed + 10 {
		parseGherkin(fmt.Appendf(nil, "Feature: f%d\n", i))
	}
	parsedMu.Lock()
	n := len(parsed)
	parsedMu.Unlock()
	if n > maxParsed {
		t.Errorf("%d documents kept, bound %d", n, maxParsed)
	}
}

// godog is given the files that hold a selected scenario, in their order;
// with none selected, every file (its tag filter then selects nothing).
func TestFilesOfSelectedScenarios(t *testing.T) {
	files := []string{"a.feature", "./b.feature", "c.feature"}
	refs := []ScenarioRef{{File: "c.feature", Line: 3}, {File: "b.feature", Line: 9}, {File: "c.feature", Line: 7}}
	if got := filesOf(files, refs); !slices.Equal(got, []string{"./b.feature", "c.feature"}) {
		t.Errorf("filesOf = %q, want b and c in their order", got)
	}
	if got := filesOf(files, nil); !slices.Equal(got, files) {
		t.Errorf("filesOf with nothing selected = %q, want every file", got)
	}
}
