package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing/fstest"

	"github.com/cucumber/godog"

	"github.com/agentconform/conform/harness/steps"
)

// StepError is a scenario step that matches no step definition, or more
// than one: a defect of the feature file, never a verdict on a kernel.
type StepError struct {
	File    string
	Line    int
	Step    string
	Matches []string // empty: undefined; two or more: ambiguous
}

func (e *StepError) Error() string {
	if len(e.Matches) == 0 {
		return fmt.Sprintf("%s:%d: undefined step %q: no step of the library matches it", e.File, e.Line, e.Step)
	}
	return fmt.Sprintf("%s:%d: ambiguous step %q matches %d step definitions: %s", e.File, e.Line, e.Step, len(e.Matches), strings.Join(e.Matches, " | "))
}

// CheckSteps reports every step of the selected scenarios that is undefined
// or ambiguous, all at once, before any kernel starts.
func CheckSteps(refs []ScenarioRef) error {
	pats := library()
	var errs []error
	seen := map[string]bool{}
	for _, ref := range refs {
		for _, st := range ref.Steps {
			key := fmt.Sprintf("%s:%d", ref.File, st.Line)
			if seen[key] {
				continue // a background or outline step, once is enough
			}
			seen[key] = true
			matches := matchingSteps(pats, st.Text)
			if len(matches) != 1 {
				errs = append(errs, &StepError{File: ref.File, Line: st.Line, Step: st.Text, Matches: matches})
			}
		}
	}
	return errors.Join(errs...)
}

var (
	libraryOnce sync.Once
	libraryPats []stepPattern
)

// library is the step library's patterns. godog keeps its registry to
// itself, so the library is registered once into a one-scenario suite that
// runs no kernel; every pattern goes through the steps package's cache.
func library() []stepPattern {
	libraryOnce.Do(func() {
		fsys := fstest.MapFS{"list.feature": {Data: []byte("Feature: list\n  Scenario: list\n    Given conform lists its steps\n")}}
		suite := godog.TestSuite{
			Name: "conform-step-library",
			ScenarioInitializer: func(sc *godog.ScenarioContext) {
				steps.Register(sc, &steps.Env{}, func(steps.Outcome) {})
			},
			Options: &godog.Options{
				Format: "progress", Output: io.Discard, FS: fsys, Paths: []string{"list.feature"},
				DefaultContext: context.Background(),
			},
		}
		suite.Run()
		libraryPats = indexPatterns(steps.Patterns())
	})
	return libraryPats
}
