package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// refPlugins are the reference plugins of every category, built from
// their main packages.
var refPlugins = []struct{ category, pkg string }{
	{"tool", "../../refplugin/cmd/refplugin"},
	{"model", "../../refplugin/model/cmd/refmodel"},
	{"context", "../../refplugin/cmd/refcontext"},
	{"memory", "../../refplugin/cmd/refmemory"},
}

// refBins builds each reference plugin once per test binary: several
// end-to-end tests run the same plugin, and each go build of one links a
// gRPC program again (issue 25).
var refBins struct {
	sync.Mutex
	dir  string
	path map[string]string
}

// refBin is the reference plugin of category, built on first use.
func refBin(t *testing.T, category string) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go toolchain on PATH to build the reference plugins")
	}
	refBins.Lock()
	defer refBins.Unlock()
	if p, ok := refBins.path[category]; ok {
		return p
	}
	if refBins.dir == "" {
		if refBins.dir, err = os.MkdirTemp("", "conform-cmd-test-plugins-"); err != nil {
			t.Fatal(err)
		}
		refBins.path = map[string]string{}
	}
	for _, p := range refPlugins {
		if p.category != category {
			continue
		}
		bin := filepath.Join(refBins.dir, "ref"+category)
		if b, err := exec.Command(goBin, "build", "-o", bin, p.pkg).CombinedOutput(); err != nil {
			t.Fatalf("building %s: %v\n%s", p.pkg, err, b)
		}
		refBins.path[category] = bin
		return bin
	}
	t.Fatalf("no reference plugin of category %q", category)
	return ""
}

// buildPlugins is every category's reference plugin.
func buildPlugins(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range refPlugins {
		out[p.category] = refBin(t, p.category)
	}
	return out
}

func TestMain(m *testing.M) {
	code := m.Run()
	if refBins.dir != "" {
		_ = os.RemoveAll(refBins.dir)
	}
	os.Exit(code)
}
