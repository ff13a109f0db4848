package props

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/server"
)

// startKernel serves the reference kernel in-process over the wire and
// initializes it; every case of a property runs its session on it.
func startKernel(t *testing.T) *driver.Kernel {
	t.Helper()
	l := adapter.InProcess{Name: "reference kernel", Serve: func(ctx context.Context, in io.Reader, out io.Writer) error {
		return server.Serve(ctx, refkernel.New(refkernel.DefaultParts()), in, out)
	}}
	k, err := driver.Start(context.Background(), l, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Shutdown(context.Background()) })
	return k
}
