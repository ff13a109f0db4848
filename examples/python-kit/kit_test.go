// Package pythonkit_test checks the Python adapter kit (conform_kit.py) from
// Go, where conform's schema validator is: what the kit sends in its own
// self-test is validated message by message against spec/wire's JSON
// Schemas, and the toy kernel built on it is run through the suite's
// turn-order scenarios. Both skip without python3.
package pythonkit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentconform/conform/internal/kittranscript"
)

func python(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	return py
}

func here(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestKitMessagesValidate runs the kit's self-test with a transcript and
// validates every message the kit sent against the protocol's schemas.
func TestKitMessagesValidate(t *testing.T) {
	py := python(t)
	transcript := filepath.Join(t.TempDir(), "transcript.jsonl")
	cmd := exec.Command(py, "-m", "unittest", "discover", "-s", here(t))
	cmd.Env = append(os.Environ(), "CONFORM_KIT_TRANSCRIPT="+transcript)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the kit's self-test failed: %v\n%s", err, out)
	}
	f, err := os.Open(transcript)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := kittranscript.Check(f)
	if err != nil {
		t.Fatal(err)
	}
	// Every kind of message the kit sends was exercised.
	res.Verify(t, []string{
		"initialize result", "session/run result", "session/cancel result", "shutdown result", "frontend/decide result",
		"context/assemble params", "hook/dispatch params", "model/stream params", "tool/invoke params",
		"frontend/interactive params", "session/meta params", "cost/usage params", "event params", "$/cancelRequest params",
		"session/run error", "session/spawn error", "initialize error",
	})
}

// TestToyKernelTurnOrder runs the turn-order scenarios against the toy
// kernel, as `conform run --kernel "python3 toy_kernel.py" --tags @TA-01`
// does: the step order passes; the reads' overlap (TA-14, a scenario of
// the same tag) fails, because the toy runs its calls one at a time.
func TestToyKernelTurnOrder(t *testing.T) {
	py := python(t)
	kittranscript.ToyTurnOrder(t, []string{py, filepath.Join(here(t), "toy_kernel.py")})
}
