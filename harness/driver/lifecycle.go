package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/internal/jsonrpc"
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

// ShutdownAnswer sends shutdown with params null, which PROTOCOL.md §6.6
// allows beside {} (the harness's own shutdowns send {}: a kernel that
// takes only {} is seen here), without closing the kernel's input, and
// waits up to timeout for the answer.
func (k *Kernel) ShutdownAnswer(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return k.rpc.Call(ctx, wire.MethodShutdown, nil, nil)
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

// OfferVersions launches a kernel of its own, sends initialize offering
// only versions, and returns the kernel's raw answer or error; the kernel
// is then closed. A kernel that does not answer within timeout is an
// error naming that.
func OfferVersions(ctx context.Context, l adapter.Launcher, timeout time.Duration, versions []string) (json.RawMessage, error) {
	ep, err := l.Launch(ctx)
	if err != nil {
		return nil, err
	}
	k := &Kernel{ep: ep, routes: map[string]*route{}}
	k.rpc = jsonrpc.New(ep.Out, ep.In, nil, k.handle, jsonrpc.Options{Handshake: true})
	k.rpc.Start()
	defer k.Close()
	ictx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	raw, err := k.rpc.CallRaw(ictx, wire.MethodInitialize, wire.InitializeParams{
		ProtocolVersions: versions,
		Harness:          wire.Peer{Name: "conform", Version: Version},
	})
	if err != nil && ictx.Err() != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("no answer to initialize within %v", timeout)
	}
	return raw, err
}
