package driver

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

// The kernel's lifecycle beyond sessions (PROTOCOL.md §2 "End of the
// connection", §5 item 6, §6.6): probes the conformance steps use to see
// what a kernel answers and whether it exits. Each leaves the kernel to be
// closed by its caller.

// Request sends any request, a method this protocol does not define
// included, and returns the kernel's raw answer or error.
func (k *Kernel) Request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return k.rpc.CallRaw(ctx, method, params)
}

// ShutdownAnswer sends shutdown, without closing the kernel's input, and
// waits up to timeout for the answer.
func (k *Kernel) ShutdownAnswer(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return k.rpc.Call(ctx, wire.MethodShutdown, wire.Empty{}, nil)
}

// CloseInput closes the kernel's input (its stdin) and nothing else: the
// end of input the kernel must take as the harness having gone.
func (k *Kernel) CloseInput() error {
	if c, ok := k.ep.In.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// AwaitExit waits up to timeout for the kernel to stop (the process to
// exit; an in-process kernel's serve function to return). It reports
// whether it stopped and, if so, its exit error (nil for status 0).
func (k *Kernel) AwaitExit(timeout time.Duration) (exited bool, err error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-k.ep.Exited():
		return true, k.ep.ExitErr()
	case <-t.C:
		return false, nil
	}
}
