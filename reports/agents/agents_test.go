package agents

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentconform/conform/harness/bridge"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/spec"
)

var (
	update  = flag.Bool("update", false, "rewrite the rendered judgements and the README's agents table")
	relabel = flag.Bool("relabel", false, "rebuild a report whose glue labels differ from its profile's (Relabel) and write it in every format")
)

const root = "../.."

type loaded struct {
	reports map[string]*report.Report
	js      map[string]*Judgements
	ps      map[string]*Profile
}

func loadAll(t *testing.T) loaded {
	t.Helper()
	l := loaded{map[string]*report.Report{}, map[string]*Judgements{}, map[string]*Profile{}}
	for _, a := range Agents {
		r, err := LoadReport(".", a.Slug)
		if err != nil {
			t.Fatal(err)
		}
		j, err := LoadJudgements(".", a.Slug)
		if err != nil {
			t.Fatal(err)
		}
		p, err := LoadProfile(root, a.Slug)
		if err != nil {
			t.Fatal(err)
		}
		l.reports[a.Slug], l.js[a.Slug], l.ps[a.Slug] = r, j, p
	}
	return l
}

// Every failing or erroring requirement of every published agent report
// is judged, every judgement names one that fails, glue is labelled glue
// in the report (so never counted against the agent), and true findings
// carry the evidence their agent allows.
func TestJudgementsHoldToReports(t *testing.T) {
	l := loadAll(t)
	for _, a := range Agents {
		for _, msg := range Check(a, l.js[a.Slug], l.reports[a.Slug], l.ps[a.Slug]) {
			t.Errorf("%s: %s", a.Slug, msg)
		}
	}
}

// judgementSchema compiles judgements.schema.json.
func judgementSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	raw, err := os.ReadFile("judgements.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("judgements.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("judgements.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// The judgement files fit their schema.
func TestJudgementsFitSchema(t *testing.T) {
	sch := judgementSchema(t)
	files, _ := filepath.Glob("*.judgements.json")
	if len(files) < len(Agents) {
		t.Errorf("%d judgement files, want one per agent (%d)", len(files), len(Agents))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// Every profile under profiles/agents loads as the bridge loads it.
func TestProfilesLoad(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(root, "profiles", "agents", "*.json"))
	if len(files) == 0 {
		t.Fatal("no profiles")
	}
	for _, f := range files {
		if _, err := bridge.LoadProfile(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func rewrite(t *testing.T, path, want string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if string(data) == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is stale; run go test ./reports/agents -update", path)
}

// The readable judgements and the README's agents table are rendered from
// the JSON, never typed.
func TestRenderedFromJSON(t *testing.T) {
	l := loadAll(t)
	for _, a := range Agents {
		rewrite(t, a.Slug+".judgements.md", Markdown(a, l.js[a.Slug], l.reports[a.Slug], l.ps[a.Slug]))
	}
	readme := filepath.Join(root, "README.md")
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	const begin, end = "<!-- agents table:", "<!-- /agents table -->"
	i := strings.Index(text, begin)
	k := strings.Index(text, end)
	if i < 0 || k < i {
		t.Fatalf("README.md has no agents table block (%s … %s)", begin, end)
	}
	rewrite(t, readme, text[:i]+Table(Agents, l.reports, l.js, l.ps)+text[k+len(end):])
}

// Every published report carries exactly its profile's glue labels, so a
// glue failure is never counted against the agent. A report run before the
// profile declared a label is rebuilt with -relabel (Relabel: the verdicts
// are the run's, checked by reproducing them) or run again.
func TestReportsCarryProfileGlue(t *testing.T) {
	cat, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	l := loadAll(t)
	for _, a := range Agents {
		r, p := l.reports[a.Slug], l.ps[a.Slug]
		if GlueMatches(r, p, l.js[a.Slug].RunGlue) {
			continue
		}
		if !*relabel {
			t.Errorf("%s.json does not carry the glue labels of profiles/agents/%s.json: run the agent again (make agents) or go test ./reports/agents -relabel", a.Slug, a.Slug)
			continue
		}
		out, err := Relabel(cat, r, p, l.js[a.Slug].RunGlue)
		if err != nil {
			t.Errorf("%s: %v", a.Slug, err)
			continue
		}
		if err := WriteAll(".", a.Slug, out); err != nil {
			t.Fatal(err)
		}
	}
}

// Relabel refuses a report its rebuild does not reproduce.
func TestRelabelRefusesWhatItCannotReproduce(t *testing.T) {
	cat, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	r, err := LoadReport(".", Agents[0].Slug)
	if err != nil {
		t.Fatal(err)
	}
	p, err := LoadProfile(root, Agents[0].Slug)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Relabel(cat, r, p, nil); err != nil {
		t.Fatalf("a faithful report: %v", err)
	}
	i := slices.IndexFunc(r.Requirements, func(q report.RequirementResult) bool { return q.Status == report.Fail })
	r.Requirements[i].Status = report.Pass
	if _, err := Relabel(cat, r, p, nil); err == nil || !strings.Contains(err.Error(), r.Requirements[i].ID) {
		t.Fatalf("a report whose %s was edited to pass: err %v, want a refusal naming it", r.Requirements[i].ID, err)
	}
}
