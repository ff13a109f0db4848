package bundle_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentconform/conform/features"
	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/bundle"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/runner"
	"github.com/agentconform/conform/internal/testrace"
	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/server"
	"github.com/agentconform/conform/spec/wire"
)

// Bundles written from the naive Python kernel's failing scenarios replay,
// on a fresh kernel in a fresh folder layout, to the same failure; the
// reference kernel, which passes them, replays to another outcome.
func TestNaiveBundlesReplay(t *testing.T) {
	testrace.SkipUnderRace(t)
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	wd, err := os.Getwd() // the package's folder (runtime.Caller's name is module-relative under -trimpath)
	if err != nil {
		t.Fatal(err)
	}
	naive := adapter.Subprocess{Argv: []string{py, filepath.Join(wd, "..", "..", "examples", "naive-kernel-python", "kernel.py")}, StderrKept: 1 << 20}
	dir := t.TempDir()
	w := &bundle.Writer{Dir: dir, Versions: bundle.Versions{Version: runner.Version, Protocol: wire.Version, CatalogVersion: 1},
		CommandLine: "go test", Run: bundle.RunSettings{ScenarioTimeoutMS: 20000, TimeoutMultiplier: 1}}
	r, err := runner.Run(context.Background(), runner.Options{
		Launcher: naive, FS: features.FS, Root: ".", Tags: "@TA-02", Concurrency: 2,
		ScenarioTimeout: 20 * time.Second, Capture: w.Capture,
	})
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := w.Finish(r.Kernel)
	if err != nil {
		t.Fatal(err)
	}
	failing := 0
	for _, s := range r.Scenarios {
		if s.Status == report.Fail || s.Status == report.Error {
			failing++
		}
	}
	if failing == 0 || len(dirs) != failing {
		t.Fatalf("%d failing scenarios, %d bundles", failing, len(dirs))
	}
	reference := adapter.InProcess{Name: "reference", Serve: func(ctx context.Context, in io.Reader, out io.Writer) error {
		return server.Serve(ctx, refkernel.New(refkernel.DefaultParts()), in, out)
	}}
	differ := 0
	for _, d := range dirs {
		b, err := bundle.Read(d)
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Exchange) < 3 {
			t.Errorf("%s: only %d exchange lines", d, len(b.Exchange))
		}
		v, _, err := bundle.Replay(context.Background(), b, naive, bundle.ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !v.Same {
			t.Errorf("%s (%s) did not replay to the same outcome: %v", d, b.Manifest.Scenario.Ref(), v.Differences)
		}
		if differ > 0 {
			continue // one is enough to show the comparison sees a fixed kernel
		}
		v, _, err = bundle.Replay(context.Background(), b, reference, bundle.ReplayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !v.Same {
			differ++
		}
	}
	if differ == 0 {
		t.Error("the reference kernel replayed every naive failure to the same outcome: the comparison sees nothing")
	}
	t.Logf("%d bundles replayed to the same failure on the naive kernel; the reference kernel replayed one to another outcome", len(dirs))
}
