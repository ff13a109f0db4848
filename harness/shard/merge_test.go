package shard

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/spec"
)

func cat() *spec.Catalog {
	return &spec.Catalog{
		Version: 1,
		Areas:   []spec.Area{{Prefix: "TA", Name: "Turn algorithm"}},
		Requirements: []spec.Requirement{
			{ID: "TA-01", Area: "TA", Title: "RunTurn step order", Level: "MUST", Class: "must", Profile: "agent-loop"},
			{ID: "TA-02", Area: "TA", Title: "max_turns bound", Level: "MUST", Class: "must", Profile: "agent-loop"},
		},
	}
}

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func check(line int, st report.Status, ids ...string) report.CheckResult {
	return report.CheckResult{Step: "a check", Line: line, Requirements: ids, Status: st, Message: "msg " + string(st)}
}

func row(file string, line int, checks ...report.CheckResult) report.ScenarioResult {
	st := report.Pass
	for _, c := range checks {
		if c.Status == report.Fail {
			st = report.Fail
		}
	}
	var ids []string
	for _, c := range checks {
		ids = append(ids, c.Requirements...)
	}
	return report.ScenarioResult{File: file, Line: line, Name: file, Tags: nil, Requirements: ids, Status: st, Checks: checks, Duration: time.Second}
}

// shardReport builds slice k of n as a run would, through a JSON round
// trip (merge reads reports from files).
func shardReport(t *testing.T, k, n int, rows ...report.ScenarioResult) *report.Report {
	t.Helper()
	r := report.BuildWith(cat(), report.Kernel{Name: "k", Version: "1", Command: "subprocess: k"}, rows, t0.Add(time.Duration(k)*time.Second), 2*time.Second,
		report.BuildOptions{Shard: "x"})
	r.Tool, r.Protocol = report.Tool{Name: "conform", Version: "0.1.0"}, "conform.wire/v1"
	r.Shard = &report.ShardInfo{K: k, N: n, Balance: "count", Scenarios: len(rows), Selected: 4}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.ValidateJSON(spec.ReportSchema, data); err != nil {
		t.Fatal(err)
	}
	var back report.Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

func status(r *report.Report, id string) report.Status {
	for _, q := range r.Requirements {
		if q.ID == id {
			return q.Status
		}
	}
	return ""
}

// A requirement that passes in one shard and fails in another fails the
// merged run, as it fails a single run; the merged report claims
// compliance again only as a whole run would.
func TestMergeDecidesAcrossShards(t *testing.T) {
	a := shardReport(t, 1, 2, row("a.feature", 3, check(4, report.Pass, "TA-01")), row("a.feature", 9, check(10, report.Pass, "TA-02")))
	b := shardReport(t, 2, 2, row("b.feature", 3, check(4, report.Fail, "TA-01")), row("b.feature", 9, check(10, report.Pass, "TA-02")))
	if status(a, "TA-01") != report.Pass || status(b, "TA-01") != report.Fail {
		t.Fatalf("setup: shard verdicts %s, %s", status(a, "TA-01"), status(b, "TA-01"))
	}
	m, err := Merge(cat(), []Source{{"a.json", a}, {"b.json", b}})
	if err != nil {
		t.Fatal(err)
	}
	single := report.BuildWith(cat(), a.Kernel, append(append([]report.ScenarioResult{}, a.Scenarios...), b.Scenarios...), t0, time.Second, report.BuildOptions{})
	for _, q := range single.Requirements {
		if got := status(m, q.ID); got != q.Status {
			t.Errorf("%s: merged %s, single run %s", q.ID, got, q.Status)
		}
	}
	if m.Compliance.Level != single.Compliance.Level || m.Compliance.Label != single.Compliance.Label {
		t.Errorf("compliance: merged %q, single %q", m.Compliance.Label, single.Compliance.Label)
	}
	if m.Shard != nil || m.Merged == nil || len(m.Merged.Sources) != 2 || m.Merged.Sources[1].Shard != "2/2" {
		t.Errorf("merge info: shard %v merged %+v", m.Shard, m.Merged)
	}
	if !m.StartedAt.Equal(a.StartedAt) || m.Duration != 3*time.Second {
		t.Errorf("merged time: %v for %v, want %v for 3s", m.StartedAt, m.Duration, a.StartedAt)
	}
	data, _ := json.Marshal(m)
	if err := report.ValidateJSON(spec.ReportSchema, data); err != nil {
		t.Fatal(err)
	}
}

func TestMergeRefuses(t *testing.T) {
	a := func() *report.Report {
		return shardReport(t, 1, 2, row("a.feature", 3, check(4, report.Pass, "TA-01")))
	}
	b := func() *report.Report {
		return shardReport(t, 2, 2, row("b.feature", 3, check(4, report.Pass, "TA-02")))
	}
	tests := []struct {
		name string
		srcs func() []Source
		want string
	}{
		{"another kernel", func() []Source {
			x := b()
			x.Kernel.Version = "2"
			return []Source{{"a", a()}, {"b", x}}
		}, "differ in kernel"},
		{"another command", func() []Source {
			x := b()
			x.Kernel.Command = "subprocess: other"
			return []Source{{"a", a()}, {"b", x}}
		}, "kernel command"},
		{"other capabilities", func() []Source {
			x := b()
			x.Kernel.Capabilities = []string{"bound.max_cost_usd"}
			return []Source{{"a", a()}, {"b", x}}
		}, "declared capabilities"},
		{"another protocol", func() []Source {
			x := b()
			x.Protocol = "conform.wire/v2"
			return []Source{{"a", a()}, {"b", x}}
		}, "protocol version"},
		{"another conform", func() []Source {
			x := b()
			x.Tool.Version = "0.2.0"
			return []Source{{"a", a()}, {"b", x}}
		}, "conform version"},
		{"another suite", func() []Source {
			x := b()
			x.Tool.SuiteDigest = "sha256:" + strings.Repeat("0", 64)
			return []Source{{"a", a()}, {"b", x}}
		}, "suite sha256:0000"},
		{"another catalog", func() []Source {
			x := b()
			x.Requirements[1].Title = "a reworded title"
			return []Source{{"a", a()}, {"b", x}}
		}, "another requirement catalog"},
		{"a shard missing", func() []Source { return []Source{{"a", a()}} }, "shards missing: 2/2"},
		{"a shard twice", func() []Source { return []Source{{"a", a()}, {"a2", a()}, {"b", b()}} }, "given twice"},
		{"other shard counts", func() []Source {
			x := b()
			x.Shard.N = 3
			return []Source{{"a", a()}, {"b", x}}
		}, "shard count"},
		{"a shard and a whole run", func() []Source {
			x := b()
			x.Shard = nil
			return []Source{{"a", a()}, {"b", x}}
		}, "one is a shard"},
		{"a scenario twice", func() []Source {
			x, y := a(), b()
			x.Shard, y.Shard = nil, nil
			y.Scenarios = append(y.Scenarios, x.Scenarios[0])
			return []Source{{"a", x}, {"b", y}}
		}, "is in both a and b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Merge(cat(), tt.srcs())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error saying %q", err, tt.want)
			}
		})
	}
	if _, err := Merge(cat(), nil); err == nil {
		t.Fatal("merging nothing succeeded")
	}
}

// Two runs of different selections fold into one that still makes no
// compliance claim.
func TestMergeSelections(t *testing.T) {
	x := shardReport(t, 1, 2, row("a.feature", 3, check(4, report.Pass, "TA-01")))
	y := shardReport(t, 2, 2, row("b.feature", 3, check(4, report.Pass, "TA-02")))
	x.Shard, y.Shard = nil, nil
	x.Selection, y.Selection = "@TA-01", "@TA-02"
	m, err := Merge(cat(), []Source{{"x", x}, {"y", y}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Selection != "@TA-01 | @TA-02" || m.Compliance.Level != report.LevelNone || m.Compliance.Complete {
		t.Fatalf("selection %q, compliance %+v", m.Selection, m.Compliance)
	}
}

// Shards of one conform agent run differ in their agent kernel's
// per-run observation file and scratch root (fresh temporary names); they
// are still one kernel and merge (the first sharded opencode run was
// refused for it). Another profile is still another command.
func TestMergeAgentShardsDifferingInPerRunPaths(t *testing.T) {
	cmd := func(obs, scratch, profile string) string {
		return "subprocess: /usr/bin/unshare --net --mount -- /w/bin/conform agent-kernel --profile /w/profiles/agents/" + profile +
			".json --bin-dir /w/.agents/node_modules/.bin --watch-lookups --timeout-multiplier 8 --observations /tmp/conform-agent-observations-" + obs +
			".jsonl --scratch /tmp/conform-agent-run-" + scratch
	}
	a := shardReport(t, 1, 2, row("a.feature", 3, check(4, report.Pass, "TA-01")))
	b := shardReport(t, 2, 2, row("b.feature", 3, check(4, report.Pass, "TA-02")))
	a.Kernel.Command, b.Kernel.Command = cmd("1017075259", "3318400519", "opencode"), cmd("316016688", "3090417709", "opencode")
	if why := sameRun(Source{"a", a}, Source{"b", b}); len(why) != 0 {
		t.Errorf("shards of one agent run refused: %v", why)
	}
	b.Kernel.Command = cmd("316016688", "3090417709", "codex")
	if why := sameRun(Source{"a", a}, Source{"b", b}); len(why) == 0 || !strings.Contains(why[0], "kernel command") {
		t.Errorf("another profile: %v, want a kernel command refusal", why)
	}
}
