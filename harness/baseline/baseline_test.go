package baseline

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/spec"
)

func cat() *spec.Catalog {
	return &spec.Catalog{
		Version: 1,
		Areas:   []spec.Area{{Prefix: "TA", Name: "Turn algorithm"}},
		Requirements: []spec.Requirement{
			{ID: "TA-01", Area: "TA", Title: "one", Level: "MUST", Class: "must", Profile: "agent-loop"},
			{ID: "TA-02", Area: "TA", Title: "two", Level: "MUST", Class: "must", Profile: "agent-loop"},
			{ID: "TA-03", Area: "TA", Title: "three", Level: "SHOULD", Class: "should", Profile: "agent-loop"},
			{ID: "TA-04", Area: "TA", Title: "four", Level: "MUST", Class: "must", Profile: "agent-loop"},
		},
	}
}

func row(file string, line int, st report.Status, id string) report.ScenarioResult {
	return report.ScenarioResult{File: file, Line: line, Name: file, Status: st, Requirements: []string{id},
		Checks: []report.CheckResult{{Step: "check", Line: line + 1, Requirements: []string{id}, Status: st, Message: "m"}}}
}

// TA-01 fails in a:1 and b:1, TA-02 passes, TA-03 fails in c:1, TA-04 is
// not tested.
func build(opt report.BuildOptions) *report.Report {
	return report.BuildWith(cat(), report.Kernel{Name: "k", Version: "1"}, []report.ScenarioResult{
		row("a", 1, report.Fail, "TA-01"), row("b", 1, report.Fail, "TA-01"),
		row("a", 5, report.Pass, "TA-02"), row("c", 1, report.Fail, "TA-03"),
	}, time.Now(), time.Second, opt)
}

func ids(items []report.BaselineItem) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.ID+strings.Join(it.Scenarios, ","))
	}
	return out
}

func TestApply(t *testing.T) {
	tests := []struct {
		name                                 string
		entries                              []Entry
		opt                                  report.BuildOptions
		strict                               bool
		expected, stale, unchecked, unlisted []string
		gate                                 []string // failing IDs at level all
		gateStale                            int
	}{
		{name: "no entry: every failure is unlisted and gates",
			unlisted: []string{"TA-01a:1,b:1", "TA-03c:1"}, gate: []string{"TA-01", "TA-03"}},
		{name: "listed failures are expected and do not gate; a listed pass is stale",
			entries:  []Entry{{ID: "TA-01", Reason: "r"}, {ID: "TA-03", Reason: "r"}, {ID: "TA-02", Reason: "fixed since"}, {ID: "TA-04", Reason: "r"}},
			expected: []string{"TA-01a:1,b:1", "TA-03c:1"}, stale: []string{"TA-02"}, unchecked: []string{"TA-04"}},
		{name: "stale fails the gate only when strict",
			entries: []Entry{{ID: "TA-02", Reason: "r"}}, strict: true,
			stale: []string{"TA-02"}, unlisted: []string{"TA-01a:1,b:1", "TA-03c:1"}, gate: []string{"TA-01", "TA-03"}, gateStale: 1},
		{name: "a partial run cannot call a pass stale",
			entries: []Entry{{ID: "TA-02", Reason: "r"}}, strict: true, opt: report.BuildOptions{Selection: "@TA-02"},
			unchecked: []string{"TA-02"}, unlisted: []string{"TA-01a:1,b:1", "TA-03c:1"}, gate: []string{"TA-01", "TA-03"}},
		{name: "a scenario-scoped entry covers only its scenarios",
			entries:  []Entry{{ID: "TA-01", Scenarios: []string{"a:1", "z:9"}, Reason: "r"}},
			expected: []string{"TA-01a:1"}, unchecked: []string{"TA-01z:9"}, unlisted: []string{"TA-01b:1", "TA-03c:1"}, gate: []string{"TA-01", "TA-03"}},
		{name: "a listed scenario that now passes is stale even in a partial run",
			entries: []Entry{{ID: "TA-02", Scenarios: []string{"a:5"}, Reason: "r"}}, opt: report.BuildOptions{Shard: "1/2"}, strict: true,
			stale: []string{"TA-02a:5"}, unlisted: []string{"TA-01a:1,b:1", "TA-03c:1"}, gate: []string{"TA-01", "TA-03"}, gateStale: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := build(tt.opt)
			if tt.opt.Shard != "" {
				r.Shard = &report.ShardInfo{K: 1, N: 2}
			}
			b := Apply(r, &File{Version: 1, ExpectedFailures: tt.entries}, "bl.yaml", tt.strict)
			for _, c := range []struct {
				what      string
				got, want []string
			}{{"expected", ids(b.ExpectedFail), tt.expected}, {"stale", ids(b.Stale), tt.stale}, {"unchecked", ids(b.Unchecked), tt.unchecked}, {"unlisted", ids(b.Unlisted), tt.unlisted}} {
				if !slices.Equal(c.got, c.want) {
					t.Errorf("%s: got %v, want %v", c.what, c.got, c.want)
				}
			}
			failing, stale := Gate(r, "all")
			var got []string
			for _, q := range failing {
				got = append(got, q.ID)
			}
			if !slices.Equal(got, tt.gate) || len(stale) != tt.gateStale {
				t.Errorf("gate: %v and %d stale, want %v and %d", got, len(stale), tt.gate, tt.gateStale)
			}
			for _, q := range r.Requirements {
				if q.ID == "TA-01" && q.Status != report.Fail {
					t.Errorf("the baseline changed a verdict: TA-01 is %s", q.Status)
				}
			}
			var md, txt bytes.Buffer
			if err := WriteMarkdown(&md, b); err != nil {
				t.Fatal(err)
			}
			if err := WriteText(&txt, b); err != nil {
				t.Fatal(err)
			}
			parseMarkdown(t, md.String())
		})
	}
}

func parseMarkdown(t *testing.T, md string) {
	t.Helper()
	var html bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(md), &html); err != nil {
		t.Fatalf("markdown: %v", err)
	}
	if strings.Contains(md, "| ") && !strings.Contains(html.String(), "<table>") {
		t.Errorf("the table did not render:\n%s", md)
	}
}

// A baseline written from a report, as JSON or YAML, validates, reads
// back, and applied to that report expects every failure and gates none.
func TestFromReportRoundTrip(t *testing.T) {
	r := build(report.BuildOptions{})
	for _, name := range []string{"b.json", "b.yaml", "b.yml"} {
		for _, scenarios := range []bool{false, true} {
			f, err := FromReport(r, FromOptions{Scenarios: scenarios, Source: "r.json", Now: func() time.Time { return time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC) }})
			if err != nil {
				t.Fatal(err)
			}
			data, err := Encode(f, name)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Parse(data, isYAML(name), cat())
			if err != nil {
				t.Fatalf("%s: %v\n%s", name, err, data)
			}
			if len(back.ExpectedFailures) != 2 || !strings.Contains(back.ExpectedFailures[0].Reason, "2025-01-02") {
				t.Fatalf("%s: %+v", name, back)
			}
			Apply(r, back, name, true)
			if failing, stale := Gate(r, "all"); len(failing)+len(stale) > 0 {
				t.Fatalf("%s (scenarios %v): a fresh baseline still gates %v, %v", name, scenarios, failing, stale)
			}
		}
	}
	r.Shard = &report.ShardInfo{K: 1, N: 2}
	if _, err := FromReport(r, FromOptions{}); err == nil {
		t.Fatal("a shard's report made a baseline")
	}
}

func TestParseRefuses(t *testing.T) {
	for name, tt := range map[string]struct {
		src  string
		yaml bool
		want string
	}{
		"unknown field": {`{"version":1,"expected_failures":[],"extra":1}`, false, "baseline.schema.json"},
		"no reason":     {`{"version":1,"expected_failures":[{"id":"TA-01"}]}`, false, "reason"},
		"bad id":        {"version: 1\nexpected_failures:\n  - id: ta-1\n    reason: x\n", true, "baseline.schema.json"},
		"unknown id":    {"version: 1\nexpected_failures:\n  - id: TA-99\n    reason: x\n", true, "not a requirement"},
		"twice":         {"version: 1\nexpected_failures:\n  - {id: TA-01, reason: x}\n  - {id: TA-01, reason: y}\n", true, "listed twice"},
		"bad scenario":  {`{"version":1,"expected_failures":[{"id":"TA-01","reason":"x","scenarios":["a.feature"]}]}`, false, "baseline.schema.json"},
		"other version": {`{"version":2,"expected_failures":[]}`, false, "baseline.schema.json"},
		"not yaml":      {"version: [1\n", true, "not valid YAML"},
		"neither":       {"\t{", false, "neither JSON nor YAML"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(tt.src), tt.yaml, cat())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
	// YAML without the extension is read too.
	if _, err := Parse([]byte("version: 1\nexpected_failures: []\n"), false, cat()); err != nil {
		t.Fatal(err)
	}
}
