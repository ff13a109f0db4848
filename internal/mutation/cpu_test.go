package mutation

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A conform run is started without the go command on its PATH (runEnv),
// and with every other folder of it.
func TestRunEnvLeavesGoOut(t *testing.T) {
	withGo, other := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(withGo, "go"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", strings.Join([]string{other, withGo, "/bin"}, string(filepath.ListSeparator)))
	env := runEnv()
	if want := "PATH=" + other + string(filepath.ListSeparator) + "/bin"; !slices.Contains(env, want) {
		t.Errorf("PATH in a run's environment: %v, want %s", env, want)
	}
	if os.Getenv("PATH") == "" {
		t.Error("runEnv changed this process's PATH")
	}
}

// A run collects garbage a quarter as often (GOGC=400), unless the
// campaign's own environment says otherwise.
func TestRunEnvGOGC(t *testing.T) {
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC")
	if env := runEnv(); !slices.Contains(env, "GOGC=400") {
		t.Errorf("no GOGC=400 in a run's environment: %v", env)
	}
	t.Setenv("GOGC", "50")
	if env := runEnv(); slices.Contains(env, "GOGC=400") || !slices.Contains(env, "GOGC=50") {
		t.Errorf("a GOGC the campaign was given is replaced: %v", env)
	}
}
