package runner

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentconform/conform/features"
	"github.com/agentconform/conform/harness/adapter"
)

// A feature with an undefined step is a defect of the feature file named by
// file:line, found before any kernel starts; never a kernel's failure.
func TestUndefinedStepIsAFeatureError(t *testing.T) {
	fsys := fstest.MapFS{"x.feature": {Data: []byte(`Feature: x
  @TA-01 @must
  Scenario: s
    Given the session allows at most 3 turns
    When the session runs
    Then the model was asked 4 tims
    And the model was asked 4 times
`)}}
	launched := false
	_, err := Run(context.Background(), Options{FS: fsys, Root: ".", Launcher: launchSpy{&launched}})
	var se *StepError
	if !errors.As(err, &se) {
		t.Fatalf("Run returned %v, want a StepError", err)
	}
	if se.File != "x.feature" || se.Line != 6 || !strings.Contains(err.Error(), "undefined step") {
		t.Errorf("error = %v, want x.feature:6 undefined", err)
	}
	if launched {
		t.Error("a kernel was launched for a suite with an undefined step")
	}
	if got := len(library()); got < 200 {
		t.Errorf("the step library has %d patterns; registration was not captured", got)
	}
}

// Every step of the embedded suite matches exactly one step definition.
func TestEmbeddedStepsAreUnambiguous(t *testing.T) {
	refs, err := Select(features.FS, ".", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckSteps(refs); err != nil {
		t.Error(err)
	}
}

// launchSpy records that a kernel was launched, and launches none.
type launchSpy struct{ launched *bool }

func (l launchSpy) Describe() string { return "spy" }

func (l launchSpy) Launch(context.Context) (*adapter.Endpoint, error) {
	*l.launched = true
	return nil, errors.New("the spy launches no kernel")
}
