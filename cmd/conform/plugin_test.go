package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentconform/conform/internal/testrace"
)

func TestPluginUsageErrors(t *testing.T) {
	dir := t.TempDir()
	badJSON := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(badJSON, []byte("[1,2]"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"plugin"}, "--plugin is required"},
		{[]string{"plugin", "--plugin", "x", "--require", "some"}, "--require must be"},
		{[]string{"plugin", "--plugin", "x", "--strict-baseline"}, "--strict-baseline needs --baseline"},
		{[]string{"plugin", "--plugin", "x", "--config", badJSON}, "not a JSON object"},
		{[]string{"plugin", "--plugin", "x", "--repeat", "0"}, "must be at least 1"},
		{[]string{"plugin", "--plugin", "'unclosed"}, "--plugin"},
	} {
		var out, errb bytes.Buffer
		if code := execute(context.Background(), tt.args, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, errb.String(), exitUsage, tt.want)
		}
	}
}

// The reference plugin through the CLI: exit 0 at every level, every
// report written, the label the plugin profile's.
func TestPluginCommandOnReference(t *testing.T) {
	testrace.SkipUnderRace(t)
	bin := refBin(t, "tool")
	dir := t.TempDir()
	args := []string{"plugin", "--plugin", bin, "--allow-effects", filepath.Join(dir, "scratch"), "--process-backed", "exec",
		"--require", "all", "-q", "--cases", "20", "--hook-cases", "5", "--seed", "9",
		"--report-json", filepath.Join(dir, "r.json"), "--junit", filepath.Join(dir, "r.xml"), "--markdown", filepath.Join(dir, "r.md"), "--html", filepath.Join(dir, "r.html")}
	var out, errb bytes.Buffer
	if code := execute(context.Background(), args, &out, &errb); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"conform-refplugin", "of 31 plugin requirements", "Not checked", "PL-13"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	var rep struct {
		Requirements []struct{ ID, Profile string }
	}
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil || len(rep.Requirements) != 31 || rep.Requirements[0].Profile != "plugin" {
		t.Errorf("JSON report: %v, %d requirements", err, len(rep.Requirements))
	}
	for _, f := range []string{"r.xml", "r.md", "r.html"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}

// A command that is no plugin: exit 2, and the report still written with
// every requirement in error.
func TestPluginCommandNotAPlugin(t *testing.T) {
	dir := t.TempDir()
	args := []string{"plugin", "--plugin", "sh -c 'echo not a plugin; exit 3'", "-q", "--start-timeout", "2s", "--report-json", filepath.Join(dir, "r.json")}
	var out, errb bytes.Buffer
	if code := execute(context.Background(), args, &out, &errb); code != exitUsage {
		t.Fatalf("exit %d, want %d\n%s", code, exitUsage, errb.String())
	}
	if !strings.Contains(errb.String(), "not a go-plugin handshake line") && !strings.Contains(errb.String(), "before printing its handshake line") {
		t.Errorf("stderr does not say what the command did: %s", errb.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil || !bytes.Contains(b, []byte(`"status": "error"`)) {
		t.Errorf("report: %v %.200s", err, b)
	}
}
