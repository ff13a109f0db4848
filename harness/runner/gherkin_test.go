package runner

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentconform/conform/spec"
)

// Defects FuzzFeatureFile found in the loader; each was a panic, a defect
// without a line, or a scenario run without the checks every scenario gets.
func TestFeatureLoaderEdges(t *testing.T) {
	cat, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, data, want string }{
		// gherkin/go v42 dereferences a nil line past its scanner's limit.
		{"line over 64 KiB", "Feature: x\n  @TA-01\n  Scenario: s\n    Given " + strings.Repeat("a", 70000) + "\n",
			"f.feature:4: line cannot be read as Gherkin (bufio.Scanner: token too long; the parser reads lines of at most 65535 bytes)"},
		{"parse error", "Feature: x\n  @TA-01\n  Scenario: s\n    Given y\n  | not | a table row |\n  Examples oops\n",
			"f.feature:6: not valid Gherkin: expected: #EOF, #TableRow, #DocStringSeparator, #StepLine, #TagLine, #ExamplesLine, #ScenarioLine, #RuleLine, #Comment, #Empty, got '  Examples oops'"},
		{"unknown language", "# language: xx-unknown\nFeature: x\n", "f.feature:1: not valid Gherkin: Language not supported: xx-unknown"},
		{"no feature", "# only a comment\n", "f.feature:1: no Feature"},
		{"untagged scenario in a rule", "Feature: x\n  Rule: r\n    Scenario: in a rule\n      Given y\n",
			`f.feature:3: scenario "in a rule" is tagged with no requirement ID; every scenario proves at least one`},
		{"unknown ID on a rule", "Feature: x\n  @TA-999\n  Rule: r\n    @TA-01\n    Scenario: s\n      Given y\n", "f.feature:5: unknown requirement ID TA-999"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := LoadFeatures(fstest.MapFS{"f.feature": {Data: []byte(tt.data)}}, ".", cat)
			var fe *FeatureError
			if !errors.As(err, &fe) || err.Error() != tt.want {
				t.Errorf("LoadFeatures: %v\nwant %s", err, tt.want)
			}
		})
	}

	// Every parse error gets its own line.
	_, _, err = LoadFeatures(fstest.MapFS{"f.feature": {Data: []byte("\ufeffFeature: x\n  Scenario: s\n")}}, ".", cat)
	if got := leafErrors(err); len(got) != 2 || !strings.HasPrefix(got[0].Error(), "f.feature:1: ") || !strings.HasPrefix(got[1].Error(), "f.feature:2: ") {
		t.Errorf("parse errors: %q", got)
	}

	// A tagged scenario in a rule inherits the feature's and the rule's tags.
	_, infos, err := LoadFeatures(fstest.MapFS{"f.feature": {Data: []byte("@TA-01\nFeature: x\n  @TA-02\n  Rule: r\n    Scenario: s\n      Given y\n")}}, ".", cat)
	if err != nil || len(infos) != 1 || strings.Join(infos[0].Requirements, " ") != "TA-01 TA-02" || infos[0].Line != 5 {
		t.Errorf("rule scenario: %+v, %v", infos, err)
	}
}
