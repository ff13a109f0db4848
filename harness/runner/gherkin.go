package runner

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	messages "github.com/cucumber/messages/go/v34"
)

// scannable refuses a file the Gherkin parser cannot read line by line: it
// reads with a bufio.Scanner of the default size, and on a line longer
// than that it dereferences a nil line and panics (gherkin/go v42). The
// same scanner is used here, so the limit is the parser's, whatever it is.
func scannable(file string, data []byte) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	for sc.Scan() {
		line++
	}
	if err := sc.Err(); err != nil {
		return &FeatureError{File: file, Line: line + 1, Reason: fmt.Sprintf("line cannot be read as Gherkin (%v; the parser reads lines of at most %d bytes)", err, bufio.MaxScanTokenSize-1)}
	}
	return nil
}

// gherkinAt is one defect in the parser's error text, "(3:5): expected …";
// the parser keeps its error type to itself.
var gherkinAt = regexp.MustCompile(`^\((\d+):\d+\): (.*)$`)

// gherkinErrors turns the parser's error into one FeatureError per defect,
// each with its line, so that every defect reads "file:line: reason".
func gherkinErrors(file string, err error) []error {
	var out []error
	for _, l := range strings.Split(err.Error(), "\n") {
		m := gherkinAt.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		line, convErr := strconv.Atoi(m[1])
		if convErr != nil || line < 1 {
			line = 1
		}
		out = append(out, &FeatureError{File: file, Line: line, Reason: "not valid Gherkin: " + m[2]})
	}
	if len(out) == 0 {
		out = append(out, &FeatureError{File: file, Line: 1, Reason: "not valid Gherkin: " + err.Error()})
	}
	return out
}

// taggedScenario is a scenario with the tags it inherits.
type taggedScenario struct {
	sc   *messages.Scenario
	tags []string
}

// featureScenarios lists every scenario of a feature, those inside a Rule
// too, each with its tags after the feature's and its rule's, as godog
// compiles them: a scenario in a Rule runs like any other, so it is
// checked like any other.
func featureScenarios(f *messages.Feature) []taggedScenario {
	var out []taggedScenario
	featureTags := tagNames(f.Tags)
	add := func(sc *messages.Scenario, inherited []string) {
		tags := append(append([]string{}, inherited...), tagNames(sc.Tags)...)
		out = append(out, taggedScenario{sc: sc, tags: tags})
	}
	for _, child := range f.Children {
		if child.Scenario != nil {
			add(child.Scenario, featureTags)
		}
		if child.Rule != nil {
			ruleTags := append(append([]string{}, featureTags...), tagNames(child.Rule.Tags)...)
			for _, rc := range child.Rule.Children {
				if rc.Scenario != nil {
					add(rc.Scenario, ruleTags)
				}
			}
		}
	}
	return out
}
