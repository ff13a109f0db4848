package report

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agentconform/conform/spec"
)

// testCatalog is a small hand-made catalog: every class, both profiles, a
// capability and an unverifiable note.
func testCatalog() *spec.Catalog {
	return &spec.Catalog{
		Version: 1,
		Areas: []spec.Area{
			{Prefix: "TA", Name: "Turn algorithm"},
			{Prefix: "HD", Name: "Hook dispatch"},
			{Prefix: "DF", Name: "Deterministic-first profile"},
		},
		Requirements: []spec.Requirement{
			{ID: "TA-01", Area: "TA", Title: "RunTurn step order", Level: "MUST", Class: "must", Profile: "agent-loop", Matrix: true, MatrixRow: 1},
			{ID: "TA-02", Area: "TA", Title: "max_turns bound", Level: "MUST", Class: "must", Profile: "agent-loop", Matrix: true, MatrixRow: 2},
			{ID: "TA-03", Area: "TA", Title: "max_cost_usd bound", Level: "SHOULD", Class: "should", Profile: "agent-loop", Capability: "bound.max_cost_usd"},
			{ID: "TA-05", Area: "TA", Title: "Weighted-token cost", Level: "MAY", Class: "may", Profile: "agent-loop", Capability: "cost.weighted_tokens"},
			{ID: "HD-01", Area: "HD", Title: "Hook order", Level: "MUST (implied)", Class: "must", Profile: "agent-loop"},
			{ID: "HD-07", Area: "HD", Title: "Concurrent observe", Level: "MAY", Class: "may", Profile: "agent-loop", Capability: "hooks.concurrent_observe"},
			{ID: "DF-01", Area: "DF", Title: "Seed row", Level: "seed", Class: "seed", Profile: "deterministic-first", Capability: "profile.deterministic_first"},
		},
	}
}

func sc(file string, line int, st Status, failure string, reqs ...string) ScenarioResult {
	return ScenarioResult{File: file, Line: line, Name: file + " scenario", Status: st, Failure: failure, Requirements: reqs, Duration: 1500 * time.Microsecond}
}

func find(t *testing.T, r *Report, id string) RequirementResult {
	t.Helper()
	for _, q := range r.Requirements {
		if q.ID == id {
			return q
		}
	}
	t.Fatalf("requirement %s not in report", id)
	return RequirementResult{}
}

var started = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func TestVerdictRules(t *testing.T) {
	tests := []struct {
		name       string
		id         string
		kernel     Kernel
		scenarios  []ScenarioResult
		wantStatus Status
		wantReason string
		wantRefs   []string
		// note, when set, is the catalog's note on what of id is not
		// observable over the wire.
		note        string
		wantPartial bool
	}{
		{
			name:       "no covering scenario is not_tested, never pass",
			id:         "TA-01",
			scenarios:  []ScenarioResult{sc("a.feature", 1, Pass, "", "TA-02")},
			wantStatus: NotTested,
			wantReason: "no scenario covers this requirement yet",
		},
		{
			name:       "one passing scenario passes",
			id:         "TA-01",
			scenarios:  []ScenarioResult{sc("a.feature", 1, Pass, "", "TA-01")},
			wantStatus: Pass,
			wantRefs:   []string{"a.feature:1"},
		},
		{
			name: "any fail fails, reason prefixed with file:line",
			id:   "TA-01",
			scenarios: []ScenarioResult{
				sc("a.feature", 1, Pass, "", "TA-01"),
				sc("a.feature", 9, Fail, "tool/invoke arrived before hook/dispatch", "TA-01"),
			},
			wantStatus: Fail,
			wantReason: "a.feature:9: tool/invoke arrived before hook/dispatch",
			wantRefs:   []string{"a.feature:1", "a.feature:9"},
		},
		{
			name: "the first failure in file-then-line order gives the reason",
			id:   "TA-01",
			scenarios: []ScenarioResult{
				sc("b.feature", 3, Fail, "second", "TA-01"),
				sc("a.feature", 20, Fail, "first", "TA-01"),
				sc("a.feature", 4, Pass, "", "TA-01"),
			},
			wantStatus: Fail,
			wantReason: "a.feature:20: first",
			wantRefs:   []string{"a.feature:4", "a.feature:20", "b.feature:3"},
		},
		{
			name: "fail wins over error",
			id:   "TA-01",
			scenarios: []ScenarioResult{
				sc("a.feature", 1, Error, "kernel crashed", "TA-01"),
				sc("a.feature", 2, Fail, "wrong order", "TA-01"),
			},
			wantStatus: Fail,
			wantReason: "a.feature:2: wrong order",
		},
		{
			name: "error without fail is error",
			id:   "TA-03",
			scenarios: []ScenarioResult{
				sc("a.feature", 1, Pass, "", "TA-03"),
				sc("a.feature", 2, Error, "kernel hung", "TA-03"),
				sc("a.feature", 3, Skipped, "n/a", "TA-03"),
			},
			wantStatus: Error,
			wantReason: "a.feature:2: kernel hung",
		},
		{
			name:       "a fail without text still says where",
			id:         "TA-01",
			scenarios:  []ScenarioResult{sc("a.feature", 7, Fail, "", "TA-01")},
			wantStatus: Fail,
			wantReason: "a.feature:7: failed",
		},
		{
			name:       "all skipped SHOULD is skipped with the skip reason",
			id:         "TA-03",
			scenarios:  []ScenarioResult{sc("a.feature", 1, Skipped, "capability bound.max_cost_usd not declared", "TA-03")},
			wantStatus: Skipped,
			wantReason: "capability bound.max_cost_usd not declared",
		},
		{
			name:       "skip without text names the undeclared capability",
			id:         "HD-07",
			kernel:     Kernel{Capabilities: []string{"bound.max_cost_usd"}},
			scenarios:  []ScenarioResult{sc("h.feature", 1, Skipped, "", "HD-07"), sc("h.feature", 5, Skipped, "", "HD-07")},
			wantStatus: Skipped,
			wantReason: "capability hooks.concurrent_observe not declared",
		},
		{
			name:       "a MUST cannot be skipped",
			id:         "TA-02",
			scenarios:  []ScenarioResult{sc("b.feature", 12, Skipped, "kernel said no", "TA-02")},
			wantStatus: Fail,
			wantReason: "a MUST cannot be skipped: b.feature:12 (kernel said no)",
		},
		{
			name:       "a MUST skipped without text still fails",
			id:         "HD-01",
			scenarios:  []ScenarioResult{sc("h.feature", 3, Skipped, "", "HD-01")},
			wantStatus: Fail,
			wantReason: "a MUST cannot be skipped: h.feature:3 (skipped by h.feature:3)",
		},
		{
			name:       "a MUST with a skipped and a passing scenario passes",
			id:         "TA-01",
			scenarios:  []ScenarioResult{sc("a.feature", 1, Skipped, "n/a", "TA-01"), sc("a.feature", 2, Pass, "", "TA-01")},
			wantStatus: Pass,
		},
		{
			name:       "unverifiable is not a pass",
			id:         "HD-01",
			scenarios:  []ScenarioResult{sc("h.feature", 1, Unverifiable, "no log channel", "HD-01")},
			wantStatus: Unverifiable,
			wantReason: "no log channel",
		},
		{
			name:       "unverifiable without text uses the catalog's note",
			id:         "HD-01",
			scenarios:  []ScenarioResult{sc("h.feature", 1, Unverifiable, "", "HD-01"), sc("h.feature", 2, Skipped, "n/a", "HD-01")},
			note:       "that no hidden channel exists",
			wantStatus: Unverifiable,
			wantReason: "that no hidden channel exists",
		},
		{
			name:        "a pass of a requirement with an unobservable clause is partial",
			id:          "HD-01",
			scenarios:   []ScenarioResult{sc("h.feature", 1, Pass, "", "HD-01")},
			note:        "that no hidden channel exists",
			wantStatus:  Pass,
			wantPartial: true,
		},
		{
			name:       "unverifiable without text or note",
			id:         "TA-03",
			scenarios:  []ScenarioResult{sc("a.feature", 1, Unverifiable, "", "TA-03")},
			wantStatus: Unverifiable,
			wantReason: "not verifiable from outside",
		},
		{
			name:        "unverifiable plus pass is pass",
			id:          "TA-01",
			scenarios:   []ScenarioResult{sc("a.feature", 1, Unverifiable, "x", "TA-01"), sc("a.feature", 2, Pass, "", "TA-01")},
			wantStatus:  Pass,
			wantPartial: true,
		},
		{
			name:       "a seed row may be skipped",
			id:         "DF-01",
			scenarios:  []ScenarioResult{sc("d.feature", 1, Skipped, "", "DF-01")},
			wantStatus: Skipped,
			wantReason: "capability profile.deterministic_first not declared",
		},
		{
			name:       "an unknown scenario status is an error, not a pass",
			id:         "TA-01",
			scenarios:  []ScenarioResult{sc("a.feature", 1, Status("pending"), "", "TA-01")},
			wantStatus: Error,
			wantReason: `a.feature:1: unknown scenario status "pending"`,
		},
		{
			name: "requirements are derived from tags when not given",
			id:   "TA-02",
			scenarios: []ScenarioResult{{
				File: "a.feature", Line: 4, Status: Fail, Failure: "ran 4 turns",
				Tags: []string{"@must", "@TA-02", "@XX-99"},
			}},
			wantStatus: Fail,
			wantReason: "a.feature:4: ran 4 turns",
			wantRefs:   []string{"a.feature:4"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := testCatalog()
			for i := range cat.Requirements {
				if cat.Requirements[i].ID == tt.id && tt.note != "" {
					cat.Requirements[i].Unverifiable = tt.note
				}
			}
			r := Build(cat, tt.kernel, tt.scenarios, started, time.Second)
			got := find(t, r, tt.id)
			if got.Partial != tt.wantPartial {
				t.Errorf("partial = %v, want %v (%q)", got.Partial, tt.wantPartial, got.Unverified)
			}
			if got.Status != tt.wantStatus {
				t.Errorf("status = %q, want %q (reason %q)", got.Status, tt.wantStatus, got.Reason)
			}
			if got.Reason != tt.wantReason {
				t.Errorf("reason = %q, want %q", got.Reason, tt.wantReason)
			}
			if tt.wantRefs != nil {
				if diff := cmp.Diff(tt.wantRefs, got.Scenarios); diff != "" {
					t.Errorf("scenarios (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestBuildRequirementFields(t *testing.T) {
	r := Build(testCatalog(), Kernel{}, []ScenarioResult{sc("a.feature", 1, Pass, "", "TA-01")}, started, time.Second)
	want := RequirementResult{
		ID: "TA-01", Area: "TA", Title: "RunTurn step order", Level: "MUST", Class: "must",
		Profile: "agent-loop", Matrix: true, Status: Pass, Scenarios: []string{"a.feature:1"},
	}
	if diff := cmp.Diff(want, r.Requirements[0]); diff != "" {
		t.Errorf("TA-01 (-want +got):\n%s", diff)
	}
	var ids []string
	for _, q := range r.Requirements {
		ids = append(ids, q.ID)
	}
	if diff := cmp.Diff([]string{"TA-01", "TA-02", "TA-03", "TA-05", "HD-01", "HD-07", "DF-01"}, ids); diff != "" {
		t.Errorf("requirements not in catalog order (-want +got):\n%s", diff)
	}
	if r.Tool.Name != "conform" || !r.StartedAt.Equal(started) || r.Duration != time.Second {
		t.Errorf("header = %+v %v %v", r.Tool, r.StartedAt, r.Duration)
	}
}

func TestBuildScenarios(t *testing.T) {
	in := []ScenarioResult{
		{File: "b.feature", Line: 2, Name: "b", Status: Pass, Requirements: []string{"TA-01", "TA-01"}, Log: []string{"→ initialize"}},
		{File: "a.feature", Line: 30, Name: "a30", Status: Fail, Requirements: []string{"TA-02"}, Log: []string{"→ session/run", "← tool/invoke"}},
		{File: "a.feature", Line: 4, Name: "a4", Status: Status("bogus"), Failure: "??", Tags: []string{"@TA-03"}},
	}
	orig := cloneScenarios(in)
	r := Build(testCatalog(), Kernel{}, in, started, time.Second)

	if diff := cmp.Diff(orig, in); diff != "" {
		t.Errorf("Build modified its input (-before +after):\n%s", diff)
	}
	want := []ScenarioResult{
		{File: "a.feature", Line: 4, Name: "a4", Status: Error, Failure: `unknown scenario status "bogus": ??`, Tags: []string{"@TA-03"}, Requirements: []string{"TA-03"}},
		{File: "a.feature", Line: 30, Name: "a30", Status: Fail, Requirements: []string{"TA-02"}, Log: []string{"→ session/run", "← tool/invoke"}},
		// A passing scenario keeps no log; a duplicated ID counts once.
		{File: "b.feature", Line: 2, Name: "b", Status: Pass, Requirements: []string{"TA-01"}},
	}
	if diff := cmp.Diff(want, r.Scenarios, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
	if got := find(t, r, "TA-01").Scenarios; len(got) != 1 {
		t.Errorf("TA-01 scenarios = %v, want one", got)
	}
}

func cloneScenarios(in []ScenarioResult) []ScenarioResult {
	out := make([]ScenarioResult, len(in))
	for i, s := range in {
		s.Tags = slices.Clone(s.Tags)
		s.Requirements = slices.Clone(s.Requirements)
		s.Log = slices.Clone(s.Log)
		out[i] = s
	}
	return out
}

func TestSummary(t *testing.T) {
	r := Build(testCatalog(), Kernel{}, []ScenarioResult{
		sc("a.feature", 1, Pass, "", "TA-01"),
		sc("a.feature", 2, Fail, "x", "TA-02"),
		sc("a.feature", 3, Skipped, "", "TA-03"),
		sc("h.feature", 1, Unverifiable, "", "HD-01"),
		sc("h.feature", 2, Error, "crash", "HD-07"),
	}, started, time.Second)
	want := Summary{
		Requirements: map[Status]int{Pass: 1, Fail: 1, Error: 1, Skipped: 1, Unverifiable: 1, NotTested: 2},
		Scenarios:    map[Status]int{Pass: 1, Fail: 1, Error: 1, Skipped: 1, Unverifiable: 1, NotReached: 0, NotRun: 0},
		ByArea: []AreaSummary{
			{Prefix: "TA", Name: "Turn algorithm", Counts: map[Status]int{Pass: 1, Fail: 1, Error: 0, Skipped: 1, Unverifiable: 0, NotTested: 1}},
			{Prefix: "HD", Name: "Hook dispatch", Counts: map[Status]int{Pass: 0, Fail: 0, Error: 1, Skipped: 0, Unverifiable: 1, NotTested: 0}},
			{Prefix: "DF", Name: "Deterministic-first profile", Counts: map[Status]int{Pass: 0, Fail: 0, Error: 0, Skipped: 0, Unverifiable: 0, NotTested: 1}},
		},
	}
	if diff := cmp.Diff(want, r.Summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}

	empty := Build(testCatalog(), Kernel{}, nil, started, 0)
	if len(empty.Summary.Requirements) != 6 || len(empty.Summary.Scenarios) != 7 {
		t.Errorf("summary keys = %v / %v, want all six / seven present", empty.Summary.Requirements, empty.Summary.Scenarios)
	}
}

// statuses builds scenarios that give each listed requirement the status.
func statuses(m map[string]Status) []ScenarioResult {
	var out []ScenarioResult
	line := 1
	for _, id := range testCatalog().IDs() {
		st, ok := m[id]
		if !ok {
			continue
		}
		out = append(out, sc("x.feature", line, st, "why "+id, id))
		line++
	}
	return out
}

func allPass(except map[string]Status) map[string]Status {
	m := map[string]Status{}
	for _, id := range testCatalog().IDs() {
		m[id] = Pass
	}
	for id, st := range except {
		if st == NotTested {
			delete(m, id)
		} else {
			m[id] = st
		}
	}
	return m
}

func TestCompliance(t *testing.T) {
	tests := []struct {
		name      string
		statuses  map[string]Status
		want      Compliance
		labelHas  []string
		labelNot  []string
		failMust  int
		failShold int
		failAll   int
	}{
		{
			name:     "everything passes",
			statuses: allPass(nil),
			want:     Compliance{Level: LevelAll, Complete: true, Label: "compliant at every level (MUST, SHOULD and MAY): all 6 agent-loop requirements fully verified; the 1 deterministic-first row is reported apart"},
		},
		{
			name:     "seed rows are excluded from the level",
			statuses: allPass(map[string]Status{"DF-01": Fail}),
			want:     Compliance{Level: LevelAll, Complete: true, Label: "compliant at every level (MUST, SHOULD and MAY): all 6 agent-loop requirements fully verified; the 1 deterministic-first row is reported apart"},
		},
		{
			name:     "an untested seed row leaves the run complete",
			statuses: allPass(map[string]Status{"DF-01": NotTested}),
			want:     Compliance{Level: LevelAll, Complete: true, Label: "compliant at every level (MUST, SHOULD and MAY): all 6 agent-loop requirements fully verified; the 1 deterministic-first row is reported apart"},
		},
		{
			name:     "a failing MUST is not compliant",
			statuses: allPass(map[string]Status{"TA-02": Fail}),
			want:     Compliance{Level: LevelNone, Complete: true, Label: "not compliant: 1 MUST requirement fails (of 6 agent-loop requirements; the 1 deterministic-first row is reported apart)"},
			failMust: 1, failShold: 1, failAll: 1,
		},
		{
			name:     "MUST failures and errors are both counted",
			statuses: allPass(map[string]Status{"TA-01": Fail, "TA-02": Fail, "HD-01": Error}),
			want:     Compliance{Level: LevelNone, Complete: true, Label: "not compliant: 2 MUST requirements fail, 1 MUST requirement ended in error (of 6 agent-loop requirements; the 1 deterministic-first row is reported apart)"},
			failMust: 3, failShold: 3, failAll: 3,
		},
		{
			name:     "a skipped MUST is a failing MUST",
			statuses: allPass(map[string]Status{"TA-01": Skipped}),
			want:     Compliance{Level: LevelNone, Complete: true, Label: "not compliant: 1 MUST requirement fails (of 6 agent-loop requirements; the 1 deterministic-first row is reported apart)"},
			failMust: 1, failShold: 1, failAll: 1,
		},
		{
			name:      "a failing SHOULD caps the level at must",
			statuses:  allPass(map[string]Status{"TA-03": Fail}),
			want:      Compliance{Level: LevelMust, Complete: true, Label: "MUST-compliant (5 fully verified, 1 failing, skipped or in error below MUST, of 6 agent-loop requirements; the 1 deterministic-first row is reported apart)"},
			failShold: 1, failAll: 1,
		},
		{
			name:     "a skipped SHOULD caps the level at must",
			statuses: allPass(map[string]Status{"TA-03": Skipped}),
			want:     Compliance{Level: LevelMust, Complete: true, Label: "MUST-compliant (5 fully verified, 1 failing, skipped or in error below MUST, of 6 agent-loop requirements; the 1 deterministic-first row is reported apart)"},
		},
		{
			name:      "an erroring SHOULD caps the level at must",
			statuses:  allPass(map[string]Status{"TA-03": Error}),
			want:      Compliance{Level: LevelMust, Complete: true, Label: "MUST-compliant (5 fully verified, 1 failing, skipped or in error below MUST, of 6 agent-loop requirements; the 1 deterministic-first row is reported apart)"},
			failShold: 1, failAll: 1,
		},
		{
			name:     "a skipped MAY caps the level at should",
			statuses: allPass(map[string]Status{"HD-07": Skipped}),
			want:     Compliance{Level: LevelShould, Complete: true, Label: "SHOULD-compliant (5 fully verified, 1 failing, skipped or in error below MUST, of 6 agent-loop requirements; the 1 deterministic-first row is reported apart)"},
		},
		{
			name:     "a failing MAY caps the level at should",
			statuses: allPass(map[string]Status{"TA-05": Fail}),
			want:     Compliance{Level: LevelShould, Complete: true, Label: "SHOULD-compliant (5 fully verified, 1 failing, skipped or in error below MUST, of 6 agent-loop requirements; the 1 deterministic-first row is reported apart)"},
			failAll:  1,
		},
		{
			name:     "not_tested makes the label partial",
			statuses: allPass(map[string]Status{"TA-02": NotTested, "HD-07": NotTested}),
			want:     Compliance{Level: LevelAll, Complete: false, NotTested: 2, Label: "compliant at every level (MUST, SHOULD and MAY) on what was tested (partial: 4 fully verified, 2 not tested, of 6 agent-loop requirements; the 1 deterministic-first row is reported apart)"},
		},
		{
			name:     "unverifiable is not counted as pass",
			statuses: allPass(map[string]Status{"HD-01": Unverifiable}),
			want:     Compliance{Level: LevelAll, Complete: false, Unverifiable: 1, Label: "compliant at every level (MUST, SHOULD and MAY) on what was tested (partial: 5 fully verified, 1 not verifiable, of 6 agent-loop requirements; the 1 deterministic-first row is reported apart)"},
		},
		{
			name:     "partial MUST-compliance names both gaps",
			statuses: allPass(map[string]Status{"TA-03": Skipped, "TA-02": NotTested, "HD-01": Unverifiable}),
			want:     Compliance{Level: LevelMust, Complete: false, NotTested: 1, Unverifiable: 1, Label: "MUST-compliant on what was tested (partial: 3 fully verified, 1 not verifiable, 1 not tested, 1 failing, skipped or in error below MUST, of 6 agent-loop requirements; the 1 deterministic-first row is reported apart)"},
		},
		{
			name:     "nothing tested establishes nothing",
			statuses: map[string]Status{},
			want:     Compliance{Level: LevelNone, Complete: false, NotTested: 6, Label: "no compliance established: none of 6 agent-loop requirements; the 1 deterministic-first row is reported apart passed (partial: 6 not tested, 0 not verifiable)"},
		},
		{
			name:     "only unverifiable and skipped establishes nothing",
			statuses: map[string]Status{"HD-01": Unverifiable, "HD-07": Skipped, "DF-01": Pass},
			want:     Compliance{Level: LevelNone, Complete: false, NotTested: 4, Unverifiable: 1, Label: "no compliance established: none of 6 agent-loop requirements; the 1 deterministic-first row is reported apart passed (partial: 4 not tested, 1 not verifiable)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Build(testCatalog(), Kernel{}, statuses(tt.statuses), started, time.Second)
			if diff := cmp.Diff(tt.want, r.Compliance); diff != "" {
				t.Errorf("compliance (-want +got):\n%s", diff)
			}
			// The honesty invariant: an incomplete run always says so.
			if !r.Compliance.Complete && r.Compliance.Level != LevelNone && !strings.Contains(r.Compliance.Label, "partial") {
				t.Errorf("incomplete run's label %q does not say partial", r.Compliance.Label)
			}
			for class, want := range map[string]int{"must": tt.failMust, "should": tt.failShold, "all": tt.failAll} {
				if got := r.Failing(class); len(got) != want {
					t.Errorf("Failing(%q) = %d requirements, want %d: %v", class, len(got), want, got)
				}
			}
		})
	}
}

func TestFailing(t *testing.T) {
	r := Build(testCatalog(), Kernel{}, statuses(map[string]Status{
		"TA-01": Pass, "TA-02": Fail, "TA-03": Error, "TA-05": Fail, "HD-01": Unverifiable, "HD-07": Skipped, "DF-01": Fail,
	}), started, time.Second)
	ids := func(rs []RequirementResult) []string {
		var out []string
		for _, q := range rs {
			out = append(out, q.ID)
		}
		return out
	}
	tests := map[string][]string{
		"must":    {"TA-02"},
		"should":  {"TA-02", "TA-03"},
		"all":     {"TA-02", "TA-03", "TA-05"},
		"may":     {"TA-02", "TA-03", "TA-05"},
		"none":    nil,
		"bogus":   {"TA-02", "TA-03", "TA-05"},
		"MUST(?)": {"TA-02", "TA-03", "TA-05"},
		" MUST ":  {"TA-02"},
		"Should":  {"TA-02", "TA-03"},
	}
	for class, want := range tests {
		if diff := cmp.Diff(want, ids(r.Failing(class))); diff != "" {
			t.Errorf("Failing(%q) (-want +got):\n%s", class, diff)
		}
	}
}

func TestBuildRealCatalog(t *testing.T) {
	cat, err := spec.Load()
	if err != nil {
		t.Fatalf("spec.Load: %v", err)
	}
	r := Build(cat, Kernel{Name: "k"}, nil, started, 0)
	if len(r.Requirements) != len(cat.Requirements) {
		t.Fatalf("%d requirements, want %d", len(r.Requirements), len(cat.Requirements))
	}
	agent := 0
	for _, q := range r.Requirements {
		if q.Status != NotTested {
			t.Errorf("%s = %s with no scenarios, want not_tested", q.ID, q.Status)
		}
		if agentLoop(q) {
			agent++
		}
	}
	if r.Compliance.Level != LevelNone || r.Compliance.Complete || r.Compliance.NotTested != agent {
		t.Errorf("compliance = %+v, want level none, incomplete, %d not tested", r.Compliance, agent)
	}
	if len(r.Summary.ByArea) != len(cat.Areas) {
		t.Errorf("by_area has %d areas, want %d", len(r.Summary.ByArea), len(cat.Areas))
	}
}

func TestBuildNegativeDurations(t *testing.T) {
	s := sc("a.feature", 1, Pass, "", "TA-01")
	s.Duration = -time.Second
	r := Build(testCatalog(), Kernel{}, []ScenarioResult{s}, started, -time.Minute)
	if r.Duration != 0 || r.Scenarios[0].Duration != 0 {
		t.Errorf("durations = %v / %v, want both clamped to 0", r.Duration, r.Scenarios[0].Duration)
	}
}

func TestBuildNilCatalog(t *testing.T) {
	r := Build(nil, Kernel{}, []ScenarioResult{sc("a.feature", 1, Pass, "", "TA-01")}, started, 0)
	if len(r.Requirements) != 0 || r.Compliance.Level != LevelNone {
		t.Errorf("nil catalog: %+v", r.Compliance)
	}
}
