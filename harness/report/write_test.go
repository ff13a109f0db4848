package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agentconform/conform/internal/safetext"
	"github.com/agentconform/conform/spec"
)

// sampleReport has every scenario status, a multi-line failure with a log,
// Markdown-hostile text and a deterministic-first row.
func sampleReport() *Report {
	k := Kernel{
		Name: "refkernel", Version: "0.3.1",
		Capabilities: []string{"bound.max_cost_usd"},
		Readings:     map[string]string{"doomloop.window": "3"},
		Command:      "refkernel --wire",
	}
	scs := []ScenarioResult{
		{File: "features/turn.feature", Line: 10, Name: "steps run in order", Tags: []string{"@TA-01", "@TA-05", "@must"}, Status: Pass, Duration: 12 * time.Millisecond, Log: []string{"dropped"}},
		{File: "features/turn.feature", Line: 40, Name: "max_turns stops the loop", Tags: []string{"@TA-02"}, Status: Fail,
			Failure: "expected 3 turns, got 4\nlast message: | pipe | <b>", Log: []string{"→ session/run {max_turns:3}", "← model/stream"}, Duration: 250 * time.Millisecond},
		{File: "features/cost.feature", Line: 5, Name: "cost cap", Tags: []string{"@TA-03", "@DF-01"}, Status: Error, Failure: "kernel exited: status 2", Log: []string{"stderr: panic"}, Duration: time.Second},
		{File: "features/hooks.feature", Line: 7, Name: "concurrent observers", Tags: []string{"@HD-07"}, Status: Skipped, Failure: "capability hooks.concurrent_observe not declared"},
		{File: "features/hooks.feature", Line: 20, Name: "no hidden channel", Tags: []string{"@HD-01"}, Status: Unverifiable, Failure: "no log channel"},
		{File: "features/df.feature", Line: 3, Name: "seed", Tags: []string{"@DF-01"}, Status: Fail, Failure: "seed broke"},
	}
	r := Build(testCatalog(), k, scs, started, 3*time.Second)
	r.Tool.Version = "v0.1.0"
	r.Protocol = "conform.wire/v1"
	return r
}

func readSchema(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "spec", "report.schema.json"))
	if err != nil {
		t.Fatalf("reading the report schema: %v", err)
	}
	return data
}

func writeJSON(t *testing.T, r *Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatalf("WriteJSON: %v", err)
	}
	return buf.Bytes()
}

func TestJSONMatchesSchema(t *testing.T) {
	schema := readSchema(t)
	reports := map[string]*Report{
		"sample":           sampleReport(),
		"empty run":        Build(testCatalog(), Kernel{}, nil, started, 0),
		"nil catalog":      Build(nil, Kernel{}, nil, time.Time{}, 0),
		"hand-assembled":   {Compliance: Compliance{Level: LevelNone, Label: "x"}, Summary: Summary{ByArea: []AreaSummary{{Prefix: "TA"}}}, Requirements: []RequirementResult{{ID: "TA-01", Area: "TA", Class: "must", Profile: "agent-loop", Status: NotTested}}},
		"unknown statuses": Build(testCatalog(), Kernel{}, []ScenarioResult{{File: "a.feature", Line: 1, Status: "undefined", Tags: []string{"@TA-01"}}}, started, 0),
	}
	if cat, err := spec.Load(); err == nil {
		var scs []ScenarioResult
		for i, id := range cat.IDs() {
			st := ScenarioStatuses()[i%5]
			scs = append(scs, ScenarioResult{File: "features/all.feature", Line: i + 1, Name: id, Tags: []string{"@" + id}, Status: st, Failure: "text " + id, Log: []string{"line"}})
		}
		reports["real catalog"] = Build(cat, Kernel{Name: "k", Version: "1"}, scs, started, time.Minute)
	} else {
		t.Errorf("spec.Load: %v", err)
	}
	for name, r := range reports {
		t.Run(name, func(t *testing.T) {
			data := writeJSON(t, r)
			if err := ValidateJSON(schema, data); err != nil {
				t.Errorf("report does not validate: %v\n%s", err, data)
			}
		})
	}
}

func TestSchemaIsStrict(t *testing.T) {
	schema := readSchema(t)
	data := writeJSON(t, sampleReport())
	mutations := map[string]func(m map[string]any){
		"unknown top-level field": func(m map[string]any) { m["extra"] = 1 },
		"unknown requirement status": func(m map[string]any) {
			m["requirements"].([]any)[0].(map[string]any)["status"] = "passed"
		},
		"not_tested is no scenario status": func(m map[string]any) {
			m["scenarios"].([]any)[0].(map[string]any)["status"] = "not_tested"
		},
		"unknown scenario field": func(m map[string]any) {
			m["scenarios"].([]any)[0].(map[string]any)["extra"] = true
		},
		"missing count key": func(m map[string]any) {
			delete(m["summary"].(map[string]any)["requirements"].(map[string]any), "not_tested")
		},
		"extra count key": func(m map[string]any) {
			m["summary"].(map[string]any)["scenarios"].(map[string]any)["not_tested"] = 0
		},
		"unknown compliance level": func(m map[string]any) {
			m["compliance"].(map[string]any)["level"] = "may"
		},
		"passing scenario with a log": func(m map[string]any) {
			for _, s := range m["scenarios"].([]any) {
				if s := s.(map[string]any); s["status"] == "pass" {
					s["log"] = []any{"x"}
				}
			}
		},
		"started_at not a date-time": func(m map[string]any) { m["started_at"] = "yesterday" },
		"duration in nanoseconds": func(m map[string]any) {
			delete(m, "duration_ms")
			m["duration"] = 1
		},
	}
	for name, mutate := range mutations {
		t.Run(name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			mutate(m)
			bad, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if err := ValidateJSON(schema, bad); err == nil {
				t.Errorf("mutated report validated")
			}
		})
	}
}

func TestValidateJSONErrors(t *testing.T) {
	if err := ValidateJSON([]byte(`{"type": 5}`), []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "schema") {
		t.Errorf("broken schema: err = %v, want a schema error", err)
	}
	if err := ValidateJSON(readSchema(t), []byte(`{`)); err == nil {
		t.Error("truncated report validated")
	}
	if err := ValidateJSON(readSchema(t), []byte(`{} {}`)); err == nil {
		t.Error("trailing data validated")
	}
}

func TestJSONShape(t *testing.T) {
	r := sampleReport()
	data := writeJSON(t, r)

	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if got := m["duration_ms"]; got != 3000.0 {
		t.Errorf("duration_ms = %v, want 3000", got)
	}
	s := m["scenarios"].([]any)
	// Sorted by file: cost, df, hooks, hooks, turn, turn.
	last := s[len(s)-1].(map[string]any)
	if last["duration_ms"] != 250.0 || last["status"] != "fail" {
		t.Errorf("last scenario = %v", last)
	}
	if _, ok := s[len(s)-2].(map[string]any)["log"]; ok {
		t.Errorf("passing scenario kept its log: %v", s[len(s)-2])
	}
	if strings.Contains(string(data), `\u003c`) {
		t.Errorf("JSON escapes HTML characters; reports are not HTML")
	}
	if !strings.Contains(string(data), "\n  \"tool\": {") {
		t.Errorf("JSON is not indented:\n%.200s", data)
	}

	var back Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatalf("reading the report back: %v", err)
	}
	if diff := cmp.Diff(r, &back, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("JSON round trip (-wrote +read):\n%s", diff)
	}
}

// JUnit shapes as a CI reader would parse them.
type xSuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Time     string   `xml:"time,attr"`
	Suites   []struct {
		Name     string  `xml:"name,attr"`
		Tests    int     `xml:"tests,attr"`
		Failures int     `xml:"failures,attr"`
		Errors   int     `xml:"errors,attr"`
		Skipped  int     `xml:"skipped,attr"`
		Time     string  `xml:"time,attr"`
		Cases    []xCase `xml:"testcase"`
	} `xml:"testsuite"`
}

type xCase struct {
	Name      string   `xml:"name,attr"`
	Classname string   `xml:"classname,attr"`
	Time      string   `xml:"time,attr"`
	Failure   *xResult `xml:"failure"`
	Error     *xResult `xml:"error"`
	Skipped   *xResult `xml:"skipped"`
}

type xResult struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

func TestJUnit(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, sampleReport()); err != nil {
		t.Fatalf("WriteJUnit: %v", err)
	}
	var got xSuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("JUnit does not parse: %v\n%s", err, buf.String())
	}
	if got.Tests != 6 || got.Failures != 2 || got.Errors != 1 || got.Skipped != 2 || got.Time != "3.000" {
		t.Errorf("totals = tests %d failures %d errors %d skipped %d time %s, want 6 2 1 2 3.000",
			got.Tests, got.Failures, got.Errors, got.Skipped, got.Time)
	}
	var names []string
	sum := map[string]int{}
	cases := map[string]xCase{}
	for _, s := range got.Suites {
		names = append(names, s.Name)
		if s.Tests != len(s.Cases) {
			t.Errorf("suite %s: tests=%d but %d testcases", s.Name, s.Tests, len(s.Cases))
		}
		sum["tests"] += s.Tests
		sum["failures"] += s.Failures
		sum["errors"] += s.Errors
		sum["skipped"] += s.Skipped
		for _, c := range s.Cases {
			cases[c.Name] = c
		}
	}
	if diff := cmp.Diff([]string{"features/cost.feature", "features/df.feature", "features/hooks.feature", "features/turn.feature"}, names); diff != "" {
		t.Errorf("suites (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"tests": 6, "failures": 2, "errors": 1, "skipped": 2}, sum); diff != "" {
		t.Errorf("suite totals do not add up (-want +got):\n%s", diff)
	}

	pass, ok := cases["[TA-01 TA-05] steps run in order"]
	if !ok {
		t.Fatalf("no testcase named with its requirement IDs; have %v", cases)
	}
	if pass.Classname != "TA" || pass.Time != "0.012" || pass.Failure != nil || pass.Error != nil || pass.Skipped != nil {
		t.Errorf("passing testcase = %+v", pass)
	}
	fail := cases["[TA-02] max_turns stops the loop"]
	if fail.Failure == nil || fail.Failure.Message != "expected 3 turns, got 4" ||
		!strings.Contains(fail.Failure.Body, "last message: | pipe | <b>") ||
		!strings.Contains(fail.Failure.Body, "→ session/run {max_turns:3}") {
		t.Errorf("failing testcase = %+v", fail.Failure)
	}
	if fail.Classname != "TA" || fail.Time != "0.250" {
		t.Errorf("failing testcase classname %q time %q", fail.Classname, fail.Time)
	}
	errc := cases["[TA-03 DF-01] cost cap"]
	if errc.Classname != "TA+DF" {
		t.Errorf("erroring testcase classname = %q, want TA+DF", errc.Classname)
	}
	if errc.Error == nil || errc.Error.Message != "kernel exited: status 2" || !strings.Contains(errc.Error.Body, "stderr: panic") {
		t.Errorf("erroring testcase = %+v", errc.Error)
	}
	skip := cases["[HD-07] concurrent observers"]
	if skip.Skipped == nil || skip.Skipped.Message != "capability hooks.concurrent_observe not declared" {
		t.Errorf("skipped testcase = %+v", skip.Skipped)
	}
	unv := cases["[HD-01] no hidden channel"]
	if unv.Skipped == nil || unv.Skipped.Message != "not verifiable from outside: no log channel" {
		t.Errorf("unverifiable testcase = %+v", unv.Skipped)
	}
}

func TestJUnitHostileText(t *testing.T) {
	text := "\x1b[31mred\x1b[0m ]]> <&> \x00 \xff end"
	r := &Report{Scenarios: []ScenarioResult{
		{File: "x.feature", Line: 1, Name: "a ]]> <b>", Status: Fail, Failure: text, Log: []string{"log ]]> line"}},
		{File: "x.feature", Line: 2, Name: "b", Status: Error, Failure: text},
		{File: "x.feature", Line: 3, Name: "c", Status: Skipped, Failure: text},
	}}
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, r); err != nil {
		t.Fatal(err)
	}
	var got xSuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatalf("JUnit with hostile text does not parse: %v\n%s", err, buf.String())
	}
	c := got.Suites[0].Cases
	if c[0].Name != "a ]]> <b>" || !strings.Contains(c[0].Failure.Body, "]]> <&>") || !strings.Contains(c[0].Failure.Body, "log ]]> line") ||
		!strings.Contains(c[0].Failure.Body, `\x1b[31mred`) || !strings.Contains(c[0].Failure.Body, `\x00 \xff end`) || !strings.HasSuffix(c[0].Failure.Body, "line") {
		t.Errorf("failure = %q / %+v", c[0].Name, c[0].Failure)
	}
	if c[1].Error == nil || !strings.Contains(c[1].Error.Body, "<&>") || c[2].Skipped == nil {
		t.Errorf("error/skipped = %+v %+v", c[1].Error, c[2].Skipped)
	}
	if !strings.Contains(buf.String(), "message log:\nlog") {
		t.Errorf("failure body lost its line breaks:\n%s", buf.String())
	}
}

func TestJUnitEmptyAndUntagged(t *testing.T) {
	var buf bytes.Buffer
	r := &Report{Scenarios: []ScenarioResult{{File: "x.feature", Line: 1, Name: "bare", Status: Pass}}}
	if err := WriteJUnit(&buf, r); err != nil {
		t.Fatal(err)
	}
	var got xSuites
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Tests != 1 || got.Suites[0].Cases[0].Name != "bare" || got.Suites[0].Cases[0].Classname != "untagged" {
		t.Errorf("untagged scenario = %+v", got)
	}
	buf.Reset()
	if err := WriteJUnit(&buf, &Report{}); err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(buf.Bytes(), &got); err != nil || got.Tests != 0 {
		t.Errorf("empty report: %v %+v", err, got)
	}
}

func TestMarkdown(t *testing.T) {
	r := sampleReport()
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, r); err != nil {
		t.Fatalf("WriteMarkdown: %v", err)
	}
	md := buf.String()

	for _, want := range []string{
		"# Conformance report: refkernel 0\\.3\\.1",
		"**Compliance: " + safetext.MarkdownInline(r.Compliance.Label) + "**",
		"`bound.max_cost_usd`",
		// Area table with counts: TA-01 and TA-05 pass, TA-02 fails, TA-03 errs.
		// The partial passes have a column of their own, after pass.
		"| TA | Turn algorithm | 2 | 0 | 1 | 1 | 0 | 0 | 0 |",
		"| HD | Hook dispatch | 0 | 0 | 0 | 0 | 1 | 1 | 0 |",
		"## Failing requirements",
		// Failure reasons, unescaped inside code fences, with their scenarios.
		"features/turn.feature:40: expected 3 turns, got 4\n  last message: | pipe | <b>",
		"features/cost.feature:5: kernel exited: status 2",
		"features/df.feature:3: seed broke",
		"**TA-02** · MUST · max\\_turns bound",
		"Scenarios: `features/turn.feature:40`",
		"❌ fail",
		"⛔ error",
		"## Requirements",
		"| ID | Title | Level | Status | Scenarios | Note |",
		"| HD-07 | Concurrent observe | MAY | ⏭️ skipped | `features/hooks.feature:7` | capability hooks\\.concurrent\\_observe not declared |",
		"| HD-01 | Hook order | MUST (implied) | ❔ unverifiable | `features/hooks.feature:20` | no log channel |",
		"## Deterministic-first profile",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}

	// Seed rows sit only under their own heading.
	reqs, df, ok := strings.Cut(md[strings.Index(md, "## Requirements"):], "## Deterministic-first profile")
	if !ok || strings.Contains(reqs, "| DF-01 |") || !strings.Contains(df, "| DF-01 |") {
		t.Errorf("DF-01 is not (only) under the deterministic-first heading:\n%s", md)
	}
	// Every table row has the same number of cells as its header: an
	// unescaped pipe in a reason would break the table.
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| TA-") || strings.HasPrefix(line, "| HD-") {
			if n := strings.Count(line, "|") - strings.Count(line, `\|`); n != 7 {
				t.Errorf("row has %d cell separators, want 7: %s", n, line)
			}
		}
	}
}

func TestMarkdownNoFailures(t *testing.T) {
	r := Build(testCatalog(), Kernel{}, statuses(allPass(nil)), started, time.Second)
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{"unnamed kernel", "No requirement fails or ends in error.", "`all`, complete"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}

	buf.Reset()
	empty := Build(testCatalog(), Kernel{Name: "k"}, nil, started, 0)
	if err := WriteMarkdown(&buf, empty); err != nil {
		t.Fatal(err)
	}
	md = buf.String()
	for _, want := range []string{
		"**Compliance: " + safetext.MarkdownInline(empty.Compliance.Label) + "**",
		"**Compliance: no compliance established\\: none of 6 ",
		"| TA-01 | RunTurn step order | MUST | ➖ not tested |  |  |",
		"`none`, incomplete: 6 not tested",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown of an empty run lacks %q:\n%s", want, md)
		}
	}
}

func TestMarkdownScenarioCell(t *testing.T) {
	refs := []string{"a:1", "a:2", "a:3", "a:4", "a:5", "a:6", "a:7"}
	if got := (mdText{}).scenarioCell(refs); !strings.HasSuffix(got, "`a:5` and 2 more") {
		t.Errorf("scenarioCell = %q", got)
	}
}

func TestText(t *testing.T) {
	r := sampleReport()
	var buf bytes.Buffer
	if err := WriteText(&buf, r); err != nil {
		t.Fatalf("WriteText: %v", err)
	}
	txt := buf.String()
	for _, want := range []string{
		"conform: refkernel 0.3.1",
		"scenarios: 6 (1 pass, 2 fail, 1 error, 1 skipped, 1 unverifiable",
		"not tested",
		"Turn algorithm",
		"Failing requirements:",
		"FAIL  TA-02 [MUST] max_turns bound",
		"        features/turn.feature:40: expected 3 turns, got 4\n        last message: | pipe | <b>",
		"ERROR TA-03 [SHOULD] max_cost_usd bound",
		"DF-01 [seed] Seed row (deterministic-first profile)",
		"Compliance: " + r.Compliance.Label + "\n",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q:\n%s", want, txt)
		}
	}
	// One count line per area, in catalog order, then the total.
	var order []string
	for _, line := range strings.Split(txt, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.Contains(" TA HD DF total ", " "+f[0]+" ") {
			order = append(order, f[0])
		}
	}
	if diff := cmp.Diff([]string{"TA", "HD", "DF", "total"}, order); diff != "" {
		t.Errorf("area lines (-want +got):\n%s\n%s", diff, txt)
	}
	if !strings.HasSuffix(txt, "Compliance: "+r.Compliance.Label+"\n") {
		t.Errorf("text does not end with the compliance label:\n%s", txt)
	}
}
