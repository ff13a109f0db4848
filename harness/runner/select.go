package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode"

	gherkin "github.com/cucumber/gherkin/go/v42"
	messages "github.com/cucumber/messages/go/v34"

	"github.com/agentconform/conform/spec"
)

// ScenarioRef is one scenario (or one example row of an outline) a tag
// expression selects.
type ScenarioRef struct {
	File string
	Line int
	Name string
	Tags []string
	// Steps are the scenario's steps (background first), as godog runs them.
	Steps []StepRef
}

// StepRef is one step of a selected scenario.
type StepRef struct {
	Text string
	Line int
}

// TagError is a tag expression that does not parse.
type TagError struct {
	Expr   string
	Reason string
}

func (e *TagError) Error() string {
	return fmt.Sprintf("tag expression %q does not parse: %s", e.Expr, e.Reason)
}

// ErrNoScenario means a tag expression parsed but selects nothing: a run
// that checks nothing must not pass for one that checked something.
var ErrNoScenario = errors.New("the tag expression selects no scenario")

// Select loads and checks the feature files under root exactly as Run does,
// compiles them into scenarios as godog does, and returns the ones the tag
// expression selects. An empty expression selects every scenario.
func Select(fsys fs.FS, root, tags string) ([]ScenarioRef, error) {
	expr, err := ParseTags(tags)
	if err != nil {
		return nil, err
	}
	cat, err := spec.Load()
	if err != nil {
		return nil, err
	}
	files, _, err := LoadFeatures(fsys, root, cat)
	if err != nil {
		return nil, err
	}
	var out []ScenarioRef
	newID := (&messages.Incrementing{}).NewId
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		doc, err := parseGherkin(data)
		if err != nil {
			return nil, &FeatureError{File: f, Reason: "not valid Gherkin: " + err.Error()}
		}
		lines := nodeLines(doc)
		for _, p := range gherkin.Pickles(*doc, f, newID) {
			names := make([]string, len(p.Tags))
			for i, t := range p.Tags {
				names[i] = t.Name
			}
			if !expr.Match(names) {
				continue
			}
			line := 0
			if n := len(p.AstNodeIds); n > 0 {
				line = lines[p.AstNodeIds[n-1]]
			}
			ref := ScenarioRef{File: path.Clean(f), Line: line, Name: p.Name, Tags: names}
			for _, st := range p.Steps {
				sr := StepRef{Text: st.Text}
				if len(st.AstNodeIds) > 0 {
					sr.Line = lines[st.AstNodeIds[0]]
				}
				ref.Steps = append(ref.Steps, sr)
			}
			out = append(out, ref)
		}
	}
	if len(out) == 0 && tags != "" {
		return nil, ErrNoScenario
	}
	return out, nil
}

// nodeLines maps the id of every scenario and example row to its line.
func nodeLines(doc *messages.GherkinDocument) map[string]int {
	lines := map[string]int{}
	if doc.Feature == nil {
		return lines
	}
	steps := func(sts []*messages.Step) {
		for _, st := range sts {
			lines[st.Id] = int(st.Location.Line)
		}
	}
	var visit func(sc *messages.Scenario)
	visit = func(sc *messages.Scenario) {
		lines[sc.Id] = int(sc.Location.Line)
		steps(sc.Steps)
		for _, ex := range sc.Examples {
			for _, row := range ex.TableBody {
				lines[row.Id] = int(row.Location.Line)
			}
		}
	}
	for _, ch := range doc.Feature.Children {
		if ch.Background != nil {
			steps(ch.Background.Steps)
		}
		if ch.Scenario != nil {
			visit(ch.Scenario)
		}
		if ch.Rule != nil {
			for _, rc := range ch.Rule.Children {
				if rc.Background != nil {
					steps(rc.Background.Steps)
				}
				if rc.Scenario != nil {
					visit(rc.Scenario)
				}
			}
		}
	}
	return lines
}

// TagExpr is a parsed godog tag expression: alternatives joined by ",",
// each a conjunction of tags joined by "&&", a tag negated by a leading "~".
//
// godog v0.16 keeps its matcher in an internal package, so the grammar is
// restated here; TestSelectAgreesWithGodog holds the two together. Where
// godog would index an empty tag (and panic) or silently read a tag with a
// space in it (a Cucumber-style "@a and @b", which matches nothing), this
// parser refuses the expression instead.
type TagExpr struct {
	any [][]tagTerm // nil: every scenario
}

type tagTerm struct {
	name string // without "@"
	not  bool
}

// ParseTags parses a godog tag expression; "" selects every scenario.
func ParseTags(s string) (TagExpr, error) {
	if s == "" {
		return TagExpr{}, nil
	}
	if strings.TrimSpace(s) == "" {
		return TagExpr{}, &TagError{Expr: s, Reason: "it is blank"}
	}
	var e TagExpr
	for _, alt := range strings.Split(s, ",") {
		if strings.TrimSpace(alt) == "" {
			return TagExpr{}, &TagError{Expr: s, Reason: `an empty alternative (",," or a "," at either end)`}
		}
		var all []tagTerm
		for _, t := range strings.Split(alt, "&&") {
			// godog trims the term and drops every "@" in it.
			t = strings.ReplaceAll(strings.TrimSpace(t), "@", "")
			switch {
			case t == "":
				return TagExpr{}, &TagError{Expr: s, Reason: `an empty tag beside "&&"`}
			case t == "~":
				return TagExpr{}, &TagError{Expr: s, Reason: `"~" with no tag after it`}
			case strings.ContainsFunc(t, unicode.IsSpace):
				return TagExpr{}, &TagError{Expr: s, Reason: fmt.Sprintf(`%q is not one tag; join tags with "," (or), "&&" (and), "~" (not)`, t)}
			}
			term := tagTerm{name: t}
			if t[0] == '~' {
				term = tagTerm{name: t[1:], not: true}
			}
			all = append(all, term)
		}
		e.any = append(e.any, all)
	}
	return e, nil
}

// Match reports whether a scenario with these tags is selected.
func (e TagExpr) Match(tags []string) bool {
	if e.any == nil {
		return true
	}
	has := func(name string) bool {
		for _, t := range tags {
			if strings.ReplaceAll(t, "@", "") == name {
				return true
			}
		}
		return false
	}
	for _, all := range e.any {
		ok := true
		for _, t := range all {
			if has(t.name) == t.not {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
