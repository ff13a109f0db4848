package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/spec"
)

// TestHTMLAndBadgeFlags: --html, --badge and --badge-json write their files
// at the end of a run, checked like every report path before it starts.
func TestHTMLAndBadgeFlags(t *testing.T) {
	dir := t.TempDir()
	page, badge, endpoint := filepath.Join(dir, "out", "r.html"), filepath.Join(dir, "b.svg"), filepath.Join(dir, "b.json")
	code, _, errOut := conform(t, "run", "--tags", "@TA-01", "-q", "--html", page, "--badge", badge, "--badge-json", endpoint)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(html), "<!DOCTYPE html>") || !strings.Contains(string(html), "TA-01") {
		t.Errorf("--html wrote no report page:\n%.300s", html)
	}
	svg, err := os.ReadFile(badge)
	if err != nil || !strings.HasPrefix(string(svg), "<svg ") {
		t.Errorf("--badge wrote %q (%v)", svg, err)
	}
	js, err := os.ReadFile(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.ValidateJSON(spec.BadgeSchema, js); err != nil {
		t.Errorf("--badge-json: %v", err)
	}
	// A selected run makes no claim, and its badge says so.
	if !strings.Contains(string(js), "selected scenarios only, no claim") {
		t.Errorf("--badge-json of a selected run:\n%s", js)
	}
}

func TestHTMLAndBadgePathsCheckedBeforeLaunch(t *testing.T) {
	kernel, marker := markerKernel(t)
	dir := t.TempDir()
	same := filepath.Join(dir, "r.out")
	wantUsage(t, []string{"run", "--kernel", kernel, "-q", "--markdown", same, "--html", same}, "--markdown and --html both name")
	wantUsage(t, []string{"run", "--kernel", kernel, "-q", "--badge", dir}, "--badge "+dir+": a folder, not a file")
	wantUsage(t, []string{"run", "--kernel", kernel, "-q", "--badge-json", dir + string(os.PathSeparator)}, "a folder, not a file")
	wantNotLaunched(t, marker)
}
