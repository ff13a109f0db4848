package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/cucumber/godog"

	"github.com/agentconform/conform/features"
)

var selectFS = fstest.MapFS{
	"a.feature": {Data: []byte(`@feat
Feature: a

  @TA-01 @must
  Scenario: one
    Given x

  @TA-02 @should @slow
  Scenario: two
    Given x

  @TA-03 @must
  Scenario Outline: outline <n>
    Given x <n>

    @ex
    Examples:
      | n |
      | 1 |

    Examples:
      | n |
      | 2 |
`)},
	"sub/b.feature": {Data: []byte(`Feature: b

  @HD-01 @must
  Scenario: three
    Given x

  Rule: a rule

    @HD-02 @should
    Scenario: four
      Given x
`)},
}

// godogSelects runs the features through godog itself, with steps that do
// nothing, and returns the names of the scenarios it ran.
func godogSelects(t *testing.T, files []string, tags string) []string {
	t.Helper()
	var mu sync.Mutex
	var ran []string
	suite := godog.TestSuite{
		Name: "select-oracle",
		ScenarioInitializer: func(sc *godog.ScenarioContext) {
			sc.Before(func(ctx context.Context, s *godog.Scenario) (context.Context, error) {
				mu.Lock()
				ran = append(ran, s.Name)
				mu.Unlock()
				return ctx, nil
			})
			sc.Step(`^.*$`, func() {})
		},
		Options: &godog.Options{Format: "progress", Output: io.Discard, FS: selectFS, Paths: files, Tags: tags, NoColors: true},
	}
	suite.Run()
	slices.Sort(ran)
	return ran
}

// The restated grammar selects exactly what godog runs.
func TestSelectAgreesWithGodog(t *testing.T) {
	files := []string{"a.feature", "sub/b.feature"}
	for _, expr := range []string{
		"", "@TA-01", "~@slow", "@TA-01,@TA-02", "@must&&~@slow", " @TA-01 && @must ",
		"@feat", "~@feat", "@ex", "~@ex", "~@TA-01,~@TA-02", "@TA-01,@nope", "@@TA-01", "TA-01",
		"@should", "@HD-02&&@should,@TA-03", "@nope", "~@must&&~@should",
	} {
		want := godogSelects(t, files, expr)
		refs, err := Select(selectFS, ".", expr)
		if len(want) == 0 {
			if !errors.Is(err, ErrNoScenario) {
				t.Errorf("Select(%q) = %v, %v; godog runs nothing, want ErrNoScenario", expr, refs, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Select(%q): %v", expr, err)
			continue
		}
		var got []string
		for _, r := range refs {
			got = append(got, r.Name)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("Select(%q) = %q, godog runs %q", expr, got, want)
		}
	}
}

func TestSelectLines(t *testing.T) {
	refs, err := Select(selectFS, ".", "@TA-03,@HD-02")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range refs {
		got = append(got, fmt.Sprintf("%s:%d %s", r.File, r.Line, r.Name))
	}
	want := []string{"a.feature:19 outline 1", "a.feature:23 outline 2", "sub/b.feature:10 four"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Expressions godog would panic on (an empty tag) or silently read as one
// tag that matches nothing are refused with the reason.
func TestTagExpressionsThatDoNotParse(t *testing.T) {
	for expr, reason := range map[string]string{
		"  ":           "blank",
		"@a,,@b":       "empty alternative",
		",@a":          "empty alternative",
		"@a,":          "empty alternative",
		"@a&&":         "empty tag",
		"&&@a":         "empty tag",
		"@a&&~":        `"~" with no tag`,
		"@a and @b":    `"a and b" is not one tag`,
		"not @slow":    `"not slow" is not one tag`,
		"@a || @b":     "is not one tag",
		"@a,\t@b c,@d": "is not one tag",
	} {
		_, err := Select(features.FS, ".", expr)
		var te *TagError
		if !errors.As(err, &te) || te.Expr != expr || !strings.Contains(te.Reason, reason) {
			t.Errorf("Select(%q) = %v; want a TagError whose reason mentions %q", expr, err, reason)
		}
	}
}

func TestSelectEmbeddedSuite(t *testing.T) {
	all, err := Select(features.FS, ".", "")
	if err != nil || len(all) == 0 {
		t.Fatalf("Select(all) = %d scenarios, %v", len(all), err)
	}
	one, err := Select(features.FS, ".", "@TA-08")
	if err != nil || len(one) == 0 || len(one) >= len(all) {
		t.Fatalf("Select(@TA-08) = %d of %d scenarios, %v", len(one), len(all), err)
	}
	if _, err := Select(features.FS, ".", "@TA-8"); !errors.Is(err, ErrNoScenario) {
		t.Errorf("Select(@TA-8) = %v, want ErrNoScenario", err)
	}
}

// A tag shaped like a requirement ID that the catalog lacks is named, even
// beside a valid ID (a three-digit @TA-999 used to pass unnoticed).
func TestUnknownRequirementIDIsNamed(t *testing.T) {
	fsys := fstest.MapFS{"x.feature": {Data: []byte("Feature: x\n\n  @TA-01 @TA-999 @must\n  Scenario: typo\n    Given x\n")}}
	_, err := Select(fsys, ".", "")
	if err == nil || !strings.Contains(err.Error(), "x.feature:4: unknown requirement ID TA-999") {
		t.Errorf("Select = %v, want x.feature:4: unknown requirement ID TA-999", err)
	}
}

func TestEmptyFolderIsErrNoFeatures(t *testing.T) {
	_, err := Select(fstest.MapFS{"notes.txt": {Data: []byte("x")}}, ".", "")
	if !errors.Is(err, ErrNoFeatures) {
		t.Errorf("Select(empty) = %v, want ErrNoFeatures", err)
	}
}
