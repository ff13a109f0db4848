package report

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/internal/safetext"
	"github.com/agentconform/conform/internal/testrace"
	"github.com/agentconform/conform/spec"
)

// richReport has one of everything the page shows: a pass with an
// observation, a failure with checks and a long exchange, an error with the
// kernel's stderr tail and a request never answered, a skip, an
// unverifiable scenario and a partial pass, over the real catalog.
func richReport() *Report {
	cat, err := spec.Load()
	if err != nil {
		panic(err)
	}
	at := func(v float64) *float64 { return &v }
	var long []Message
	for i := range 60 {
		ms := float64(100 + 2*i)
		long = append(long, Message{Seq: 46 + i, AtMS: ms, DoneMS: at(ms + 1), Kind: "request", Method: "model/stream", Session: "s1", Label: "model/stream"})
	}
	scs := []ScenarioResult{
		{File: "turn_order.feature", Line: 13, Name: "steps run in order", Status: Pass, Requirements: []string{"TA-01"},
			Checks:       []CheckResult{{Step: "the steps ran in order", Line: 20, Requirements: []string{"TA-01"}, Status: Pass}},
			Observations: []Observation{{Subject: "TA-01", Scenario: "turn_order.feature:13", What: "the kernel pipelined two steps"}}},
		{File: "bounds.feature", Line: 28, Name: "max_turns 1 ends the loop", Status: Fail, Requirements: []string{"TA-02"},
			Failure: "expected 1 ordinary turn, the kernel ran 61",
			Checks: []CheckResult{
				{Step: "the kernel ran 1 ordinary turns", Line: 18, Requirements: []string{"TA-02"}, Status: Fail, Message: "expected 1 ordinary turn, the kernel ran 61"},
				{Step: "the status names the bound", Line: 24, Requirements: []string{"TA-02"}, Status: NotReached, Message: "the kernel never took the limit path"},
			},
			Exchange: long, ExchangeOmitted: 45, Log: []string{"#46 model/stream"}},
		{File: "cost.feature", Line: 17, Name: "cost from pricing", Status: Error, Requirements: []string{"TA-06"},
			Failure: "kernel error: the kernel exited (status 1)\n--- kernel stderr (tail) ---\nTraceback (most recent call last):\nValueError: boom",
			Exchange: []Message{
				{Seq: 1, AtMS: 1, DoneMS: at(2), Kind: "request", Method: "context/assemble", Label: "context/assemble"},
				{Seq: 3, AtMS: 3, Kind: "request", Method: "tool/invoke", Label: "invoke read", Unanswered: true},
				{Seq: 4, AtMS: 4, Kind: "notification", Method: "trace/span", Label: "span turn"},
			}},
		{File: "bounds_cost.feature", Line: 48, Name: "weighted tokens", Status: Skipped, Requirements: []string{"TA-05"},
			Failure: `the kernel does not declare capability "cost.weighted_tokens"`},
		{File: "subagents.feature", Line: 90, Name: "hidden channel", Status: Unverifiable, Requirements: []string{"SA-13"},
			Failure: "not verifiable from outside"},
		{File: "bounds.feature", Line: 60, Name: "final answer", Status: Pass, Requirements: []string{"TA-08"},
			Checks: []CheckResult{
				{Step: "one final-answer turn", Line: 61, Requirements: []string{"TA-08"}, Status: Pass},
			}},
		{File: "bounds.feature", Line: 70, Name: "final answer, no tools", Status: NotReached, Requirements: []string{"TA-08"},
			Checks: []CheckResult{
				{Step: "it offered no tools", Line: 72, Requirements: []string{"TA-08"}, Status: NotReached, Message: "no tools were declared"},
			}},
	}
	r := Build(cat, Kernel{Name: "kernel", Version: "1.0", Capabilities: []string{"bound.max_cost_usd"}, Readings: map[string]string{"doomloop.window": "turns"}, Command: "python3 k.py"},
		scs, started, 3*time.Second)
	r.Tool = Tool{Name: "conform", Version: "0.1.0"}
	r.Protocol = "conform.wire/v1"
	r.Warnings = []string{`unknown capability "bound.max_turn" (did you mean "bound.max_turns"?)`}
	return r
}

func TestHTMLSections(t *testing.T) {
	r := richReport()
	page := string(renderHTML(t, r))
	cat, _ := spec.Load()

	// Every requirement has a row, filterable by status and level, with
	// its statement and source from the catalog.
	row := regexp.MustCompile(`<tr id="r-([A-Z]{2}-[0-9]{2})" class="st-(pass|partial|fail|error|skipped|unverifiable|not_tested) lv-(must|should|may|seed)">`)
	rows := row.FindAllStringSubmatch(page, -1)
	if len(rows) != len(cat.Requirements) {
		t.Errorf("%d requirement rows, want %d", len(rows), len(cat.Requirements))
	}
	for _, q := range cat.Requirements {
		for _, s := range []string{q.Statement, q.Source} {
			if !strings.Contains(page, safetext.HTML(safetext.Line(s))) {
				t.Errorf("%s: %q is not on the page", q.ID, s)
			}
		}
	}
	if n := strings.Count(page, `<input type="checkbox" id="f-`); n != len(filterStatuses)+len(filterLevels) {
		t.Errorf("%d filters, want %d", n, len(filterStatuses)+len(filterLevels))
	}
	for _, s := range filterStatuses {
		if !strings.Contains(page, fmt.Sprintf("body:has(#f-st-%s:not(:checked)) tr.st-%s{display:none}", s, s)) {
			t.Errorf("no CSS rule for the %s filter", s)
		}
	}

	// Failing, erring, partial, unverifiable and observed requirements each
	// have a section; a skipped one does not.
	for id, class := range map[string]string{"TA-02": "fail", "TA-06": "error", "TA-08": "partial", "SA-13": "unverifiable", "TA-01": "observed"} {
		if !strings.Contains(page, fmt.Sprintf(`<article id="d-%s" class="%s">`, id, class)) {
			t.Errorf("no %s section for %s", class, id)
		}
	}
	if strings.Contains(page, `id="d-TA-05"`) {
		t.Error("a skipped requirement has a section of its own")
	}

	// Scenarios: the failing and the erring one with their diagrams and
	// texts; the partial pass with its checks; not the skipped one.
	for _, want := range []string{
		"The last 60 of 105 recorded messages (45 earlier ones left out).",
		"All 3 recorded messages.",
		"<h4>Failure, then the kernel's stderr tail</h4>",
		"ValueError: boom",
		"invoke read (never answered)",
		"the kernel never took the limit path",
		"no tools were declared",
		"the kernel pipelined two steps",
		`<div class="banner warn"><strong>Warning:</strong> unknown capability`,
		"Message log as text (1 lines)",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(page, `<svg `); n != 2 {
		t.Errorf("%d diagrams, want 2", n)
	}
	if strings.Contains(page, "weighted tokens</h3>") {
		t.Error("the skipped scenario has a section of its own")
	}
	if strings.Contains(page, "Interrupted:") || strings.Contains(page, "Selection:") {
		t.Error("banner for an interruption or selection that did not happen")
	}
	if !strings.Contains(page, `<span class="level lvl-none">NONE</span>`) {
		t.Error("compliance label is not marked none")
	}
}

func TestHTMLBanners(t *testing.T) {
	r := richReport()
	r.Interrupted = true
	r.Selection = "@TA-02"
	page := string(renderHTML(t, r))
	for _, want := range []string{
		`<div class="banner bad" role="alert"><strong>Interrupted:</strong>`,
		`<div class="banner info"><strong>Selection:</strong> only the scenarios selected by <code>@TA-02</code>`,
		`<span class="level lvl-claim">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestHTMLCommittedReports: the reports under reports/ render as
// well-formed, self-contained pages.
func TestHTMLCommittedReports(t *testing.T) {
	testrace.SkipUnderRace(t)
	for _, name := range []string{"reference.json", "naive-kernel-python.json"} {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile("../../reports/" + name)
			if err != nil {
				t.Skip(err)
			}
			var r Report
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatal(err)
			}
			doc := renderHTML(t, &r)
			checkBalanced(t, doc)
			_, _, root := htmlShape(t, doc)
			checkSelfContained(t, root)
			for _, s := range svgBlocks(doc) {
				checkXML(t, "inline SVG", s)
			}
		})
	}
}
