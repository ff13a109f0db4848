package runner

import (
	"bytes"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentconform/conform/features"
	"github.com/agentconform/conform/spec"
)

// fuzzFeatureSeeds are feature files at the edges of what the loader
// handles: keywords in odd places, other languages, rules, outlines, tags
// that look like requirement IDs, and bytes that are not text.
var fuzzFeatureSeeds = []string{
	"",
	"Feature:",
	"Feature: x\n",
	"Feature: x\n  Scenario: s\n    Given y\n",
	"@TA-01 @must\nFeature: x\n  Scenario: s\n    Given y\n",
	"Feature: x\n  @TA-999\n  Scenario: s\n    Given y\n",
	"Feature: x\n  @ta-01 @TA-01x @TA- @-01 @@TA-01\n  Scenario: s\n    Given y\n",
	"Feature: x\n  Rule: r\n    @TA-01\n    Scenario: s\n      Given y\n",
	"Feature: x\n  Rule: r\n    Scenario: untagged in a rule\n      Given y\n",
	"@TA-01\nFeature: x\n  Background:\n    Given b\n  Scenario Outline: o <a>\n    Given <a>\n    Examples:\n      | a |\n      | 1 |\n      | 2 |\n",
	"Feature: x\n  @TA-01\n  Scenario Outline: no rows\n    Given <a>\n    Examples:\n      | a |\n",
	"Feature: x\n  @TA-01\n  Scenario: s\n    Given y\n      \"\"\"\n      never closed\n",
	"Feature: x\n  @TA-01\n  Scenario: s\n    Given y\n  | not | a table row |\n  Examples oops\n",
	"# language: fr\nFonctionnalité: x\n  @TA-01\n  Scénario: s\n    Soit y\n",
	"# language: xx-unknown\nFeature: x\n",
	"Feature: a\nFeature: b\n",
	"Feature: x\r\n  @TA-01\r\n  Scenario: s\r\n    Given y\r\n",
	"\ufeffFeature: x\n  @TA-01\n  Scenario: s\n    Given y\n",
	"Feature: x\n  @TA-01\n  Scenario: s\n    Given y\n" + strings.Repeat("a", 70000) + "\n",
	"\xff\xfe\x00Feature: \x00\n",
}

// FuzzFeatureFile loads any bytes as a .feature file, as conform run
// --features does, and selects its scenarios. Neither panics nor hangs.
// The loader answers with scenarios or with defects, each a FeatureError
// naming the file and a line in it; when it accepts the file, every
// scenario Select would run proves at least one known requirement, and
// every step it would check has a line. The seeds are the embedded feature
// files and fuzzFeatureSeeds.
func FuzzFeatureFile(f *testing.F) {
	cat, err := spec.Load()
	if err != nil {
		f.Fatal(err)
	}
	names, err := fs.Glob(features.FS, "*.feature")
	if err != nil || len(names) == 0 {
		f.Fatalf("embedded feature files: %v %v", names, err)
	}
	for _, n := range names {
		data, err := fs.ReadFile(features.FS, n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "")
	}
	for _, s := range fuzzFeatureSeeds {
		f.Add([]byte(s), "")
	}
	for _, tags := range []string{"@TA-01", "@TA-01,~@must", "@TA-01 && @must", "", " ", ",", "~", "@a&&"} {
		f.Add([]byte(fuzzFeatureSeeds[4]), tags)
	}
	f.Fuzz(func(t *testing.T, data []byte, tags string) {
		fuzzFeature(t, cat, data, tags)
	})
}

func fuzzFeature(t *testing.T, cat *spec.Catalog, data []byte, tags string) {
	const file = "f.feature"
	fsys := fstest.MapFS{file: {Data: data}}
	// A line number the parser can give: a line of the file, or the end.
	lastLine := bytes.Count(data, []byte("\n")) + 2
	inFile := func(n int) bool { return n >= 1 && n <= lastLine }

	files, infos, loadErr := LoadFeatures(fsys, ".", cat)
	if !slices.Equal(files, []string{file}) {
		t.Fatalf("files = %q, want [%s]", files, file)
	}
	if loadErr != nil {
		leaves := leafErrors(loadErr)
		for _, e := range leaves {
			var fe *FeatureError
			if !errors.As(e, &fe) || fe.File != file || !inFile(fe.Line) || strings.TrimSpace(fe.Reason) == "" {
				t.Errorf("defect without file:line and reason: %T %q (line %v)", e, e, lineOf(e))
			}
		}
	} else {
		for _, in := range infos {
			if in.File != file || !inFile(in.Line) || len(in.Requirements) == 0 {
				t.Errorf("scenario info %+v: want file %s, a line in it and a requirement", in, file)
			}
			for _, id := range in.Requirements {
				if _, ok := cat.Get(id); !ok {
					t.Errorf("scenario %s:%d lists unknown requirement %q", in.File, in.Line, id)
				}
			}
		}
	}

	all, err := Select(fsys, ".", "")
	switch {
	case loadErr != nil && err == nil:
		t.Fatalf("Select ran a file LoadFeatures refused (%v)", loadErr)
	case loadErr == nil && err != nil:
		t.Fatalf("Select refused a file LoadFeatures accepted: %v", err)
	case err != nil:
		return
	}
	for _, ref := range all {
		if ref.File != file || !inFile(ref.Line) {
			t.Errorf("selected scenario %q at %s:%d: want a line of %s", ref.Name, ref.File, ref.Line, file)
		}
		if !slices.ContainsFunc(ref.Tags, func(tag string) bool {
			_, ok := cat.Get(strings.TrimPrefix(tag, "@"))
			return ok
		}) {
			t.Errorf("selected scenario %q at %s:%d proves no requirement (tags %q), yet the file was accepted", ref.Name, ref.File, ref.Line, ref.Tags)
		}
		for _, st := range ref.Steps {
			if !inFile(st.Line) {
				t.Errorf("step %q of %s:%d has line %d", st.Text, ref.File, ref.Line, st.Line)
			}
		}
	}
	if err := CheckSteps(all); err != nil {
		for _, e := range leafErrors(err) {
			var se *StepError
			if !errors.As(e, &se) || se.File != file || !inFile(se.Line) {
				t.Errorf("step defect without file:line: %T %q", e, e)
			}
		}
	}

	some, err := Select(fsys, ".", tags)
	if _, perr := ParseTags(tags); perr != nil {
		var te *TagError
		if !errors.As(err, &te) {
			t.Errorf("tag expression %q does not parse (%v), Select says %v", tags, perr, err)
		}
		return
	}
	switch {
	case errors.Is(err, ErrNoScenario):
		if tags == "" {
			t.Errorf("the empty expression selected nothing and was refused")
		}
	case err != nil:
		t.Errorf("Select(%q): %v", tags, err)
	}
	for _, ref := range some {
		if !slices.ContainsFunc(all, func(a ScenarioRef) bool { return a.File == ref.File && a.Line == ref.Line && a.Name == ref.Name }) {
			t.Errorf("Select(%q) chose %s:%d, which the empty expression did not", tags, ref.File, ref.Line)
		}
	}
}

// leafErrors flattens errors.Join trees.
func leafErrors(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, leafErrors(e)...)
		}
		return out
	}
	return []error{err}
}

func lineOf(err error) any {
	var fe *FeatureError
	if errors.As(err, &fe) {
		return fe.Line
	}
	return nil
}
