package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/spec"
)

// writeAll writes r in every format conform run writes, into dir, and
// returns the paths (the badge endpoint JSON last).
func writeAll(t *testing.T, dir, name string, r *report.Report) []string {
	t.Helper()
	var paths []string
	for _, f := range []struct {
		ext   string
		write func(*bytes.Buffer) error
	}{
		{".json", func(b *bytes.Buffer) error { return report.WriteJSON(b, r) }},
		{".md", func(b *bytes.Buffer) error { return report.WriteMarkdown(b, r) }},
		{".html", func(b *bytes.Buffer) error { return report.WriteHTML(b, r) }},
		{".junit.xml", func(b *bytes.Buffer) error { return report.WriteJUnit(b, r) }},
		{".badge.svg", func(b *bytes.Buffer) error { return report.WriteBadge(b, r) }},
		{".badge.json", func(b *bytes.Buffer) error { return report.WriteBadgeJSON(b, r) }},
	} {
		ext, write := f.ext, f.write
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name+ext)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if ext != ".badge.json" {
			paths = append(paths, p)
		}
	}
	return append(paths, filepath.Join(dir, name+".badge.json"))
}

func builtReport(t *testing.T) *report.Report {
	cat, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	r := report.Build(cat, report.Kernel{Name: "k", Version: "1"}, []report.ScenarioResult{
		{File: "bounds.feature", Line: 28, Name: "max_turns", Status: report.Pass, Requirements: []string{"TA-02"}},
	}, time.Unix(0, 0), time.Second)
	r.Tool = runner.ToolOf(nil, "")
	return r
}

func TestReportCheck(t *testing.T) {
	dir := t.TempDir()
	r := builtReport(t)
	current := writeAll(t, dir, "current", r)
	reports, badgeJSON := current[:len(current)-1], current[len(current)-1]

	code, out, errOut := conform(t, append([]string{"report", "check"}, reports...)...)
	if code != 0 || strings.Count(out, "current ") != len(reports) {
		t.Fatalf("reports of this suite: exit %d\n%s%s", code, out, errOut)
	}

	// A report of another suite (a feature changed since) is stale, in
	// every format, and named.
	r.Tool.SuiteDigest = "sha256:" + strings.Repeat("ab", 32)
	stale := writeAll(t, dir, "stale", r)
	code, out, errOut = conform(t, append([]string{"report", "check", reports[0]}, stale[:len(stale)-1]...)...)
	if code != exitFailed {
		t.Errorf("stale reports: exit %d, want %d\n%s%s", code, exitFailed, out, errOut)
	}
	for _, p := range stale[:len(stale)-1] {
		if !strings.Contains(out, "stale       "+p+": made by suite sha256:abababababab") {
			t.Errorf("%s is not named stale:\n%s", p, out)
		}
	}
	if !strings.Contains(out, "5 of 6 reports do not come from this conform's suite") {
		t.Errorf("no summary:\n%s", out)
	}

	// One written before reports carried a digest is stale too.
	var old map[string]any
	raw, _ := os.ReadFile(reports[0])
	if err := json.Unmarshal(raw, &old); err != nil {
		t.Fatal(err)
	}
	old["tool"] = map[string]any{"name": "conform", "version": "0.1.0"}
	raw, _ = json.Marshal(old)
	oldPath := filepath.Join(dir, "old.json")
	os.WriteFile(oldPath, raw, 0o644)
	if code, out, _ := conform(t, "report", "check", oldPath); code != exitFailed || !strings.Contains(out, "names no suite digest") {
		t.Errorf("a report without a digest: exit %d\n%s", code, out)
	}

	// A badge endpoint document or a file that is no report cannot be
	// checked: a usage error, named.
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("hello"), 0o644)
	for _, p := range []string{badgeJSON, notes, filepath.Join(dir, "missing.json")} {
		if code, out, _ := conform(t, "report", "check", p); code != exitUsage || !strings.Contains(out, p) {
			t.Errorf("%s: exit %d, want %d\n%s", p, code, exitUsage, out)
		}
	}
}

// TestMergeSaysWhenTheSuiteDiffers: a report rendered again by conform
// merge warns when another suite made it.
func TestMergeSaysWhenTheSuiteDiffers(t *testing.T) {
	dir := t.TempDir()
	r := builtReport(t)
	r.Tool.SuiteDigest = "sha256:" + strings.Repeat("cd", 32)
	paths := writeAll(t, dir, "r", r)
	md := filepath.Join(dir, "merged.md")
	code, out, errOut := conform(t, "merge", paths[0], "--markdown", md)
	if code == exitUsage {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errOut)
	}
	got, _ := os.ReadFile(md)
	if !strings.Contains(string(got), "the reports were made by suite") || !strings.Contains(string(got), "cdcdcdcdcdcd, this conform") {
		t.Errorf("the merged report does not say another suite made it:\n%s", got)
	}
	r.Tool = runner.ToolOf(nil, "")
	paths = writeAll(t, dir, "now", r)
	conform(t, "merge", paths[0], "--markdown", md)
	if got, _ := os.ReadFile(md); strings.Contains(string(got), "made by suite") {
		t.Error("a report of this suite is said to come from another")
	}
}
