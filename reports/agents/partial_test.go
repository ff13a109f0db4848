package agents

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentconform/conform/spec"
)

// Partial are the agents whose whole-suite run could not finish (stopped
// on a saturated machine: reports/agents/BLOCKED.md), with the interrupted
// run published under reports/agents/NAME/ (NAME.json, .md, .html) and
// judged there like a whole run: every failing or erroring requirement of
// what did run is classed. They stay out of the README's agents table,
// which compares whole runs.
var Partial = []Agent{}

func TestPartialRunsAreJudged(t *testing.T) {
	sch := judgementSchema(t)
	for _, a := range Partial {
		dir := a.Slug
		r, err := LoadReport(dir, a.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Interrupted {
			t.Errorf("%s/%s.json ran every scenario: publish it as reports/agents/%s.json and move it to Agents", dir, a.Slug, a.Slug)
		}
		j, err := LoadJudgements(dir, a.Slug)
		if err != nil {
			t.Fatal(err)
		}
		p, err := LoadProfile(root, a.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if !GlueMatches(r, p, j.RunGlue) && *relabel {
			cat, err := spec.Load()
			if err != nil {
				t.Fatal(err)
			}
			out, err := Relabel(cat, r, p, j.RunGlue)
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			if err := WriteAll(dir, a.Slug, out); err != nil {
				t.Fatal(err)
			}
			r = out
		}
		for _, msg := range Check(a, j, r, p) {
			t.Errorf("%s (partial): %s", a.Slug, msg)
		}
		if !GlueMatches(r, p, j.RunGlue) {
			t.Errorf("%s/%s.json does not carry the glue labels of profiles/agents/%s.json and its run_glue", dir, a.Slug, a.Slug)
		}
		data, err := os.ReadFile(filepath.Join(dir, a.Slug+".judgements.json"))
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: %v", dir, err)
		}
		rewrite(t, filepath.Join(dir, a.Slug+".judgements.md"), Markdown(a, j, r, p))
	}
}
