package driver

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/adapter"
)

// A kernel that prints prose and exits meets either our write of
// initialize (its input is gone: a broken pipe, or a file already closed)
// or our read of its line first, depending on timing. Every run must give
// the same message, naming its line, its exit status and its stderr.
func TestStartFailureHasOneMessage(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, tt := range []struct{ name, script string }{
		// Exits at once: the write and the read race.
		{"prose then exit", `echo "Hello! I am a kernel"; echo "loading failed" >&2; exit 3`},
		// Closes its input first: our write fails before the line comes.
		{"closed input, prose, exit", `exec 0<&-; sleep 0.2; echo "Hello! I am a kernel"; echo "loading failed" >&2; exit 3`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := adapter.Subprocess{Argv: []string{"sh", "-c", tt.script}}
			first := ""
			for i := range 20 {
				k, err := Start(context.Background(), l, guard)
				if k != nil {
					k.Close()
					t.Fatal("the kernel started")
				}
				var f *Fault
				if !errors.As(err, &f) {
					t.Fatalf("run %d: %v, want a *Fault", i+1, err)
				}
				msg := f.Error()
				if i == 0 {
					t.Log(msg)
				}
				for _, w := range []string{`not a JSON-RPC message`, `"Hello! I am a kernel"`, "exited (exit status 3)", "loading failed"} {
					if !strings.Contains(msg, w) {
						t.Errorf("run %d: the message does not say %q:\n%s", i+1, w, msg)
					}
				}
				if i == 0 {
					first = msg
				} else if msg != first {
					t.Fatalf("run %d gave another message:\n%s\nrun 1:\n%s", i+1, msg, first)
				}
			}
		})
	}
}

// A kernel that closes its input and keeps running, silent, is told so,
// not reported as a broken pipe nor as slow to start.
func TestClosedInputWhileRunningIsNamed(t *testing.T) {
	serve := func(ctx context.Context, in io.Reader, _ io.Writer) error {
		in.(io.Closer).Close()
		<-ctx.Done()
		return nil
	}
	start := time.Now()
	k, err := Start(context.Background(), adapter.InProcess{Name: "deaf", Serve: serve}, guard)
	if k != nil {
		k.Close()
		t.Fatal("the kernel started")
	}
	if err == nil || !strings.Contains(err.Error(), "closed its input (stdin) during initialize and kept running") {
		t.Errorf("Start: %v", err)
	}
	if d := time.Since(start); d > guard/2 {
		t.Errorf("took %v: it waited for the initialize timeout", d)
	}
}
