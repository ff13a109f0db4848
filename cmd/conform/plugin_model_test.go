package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentconform/conform/internal/testrace"
)

// The reference model provider through the CLI, its category told from
// what it serves: exit 0 at every level, the label the model-provider
// profile's.
func TestPluginCommandDetectsModelProvider(t *testing.T) {
	testrace.SkipUnderRace(t)
	bin := refBin(t, "model")
	out := filepath.Join(t.TempDir(), "r.json")
	var stdout, stderr bytes.Buffer
	code := execute(context.Background(), []string{"plugin", "--plugin", bin, "-q", "--require", "all", "--cases", "20", "--report-json", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"MP-35"`, `"profile": "model-provider"`, "model-provider requirements"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("the report lacks %s", want)
		}
	}
	if bytes.Contains(b, []byte(`"PL-01"`)) {
		t.Error("a model provider's report carries PL rows")
	}
}

// --category names a registered category; a model provider checked as a
// tool provider cannot be checked, and the error says why.
func TestPluginCommandCategoryFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := execute(context.Background(), []string{"plugin", "--plugin", "x", "--category", "vendor"}, &stdout, &stderr); code != exitUsage ||
		!strings.Contains(stderr.String(), "--category must be one of") || !strings.Contains(stderr.String(), "model") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	testrace.SkipUnderRace(t)
	bin := refBin(t, "model")
	stdout.Reset()
	stderr.Reset()
	if code := execute(context.Background(), []string{"plugin", "--plugin", bin, "-q", "--category", "tool"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("a model provider checked as a tool provider: exit %d\n%s", code, stderr.String())
	}
}
