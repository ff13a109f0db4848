package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

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

// newlinePause is how long a request's line waits for its newline in
// RequestNewlineApart: long enough for a kernel to read the line alone.
const newlinePause = 50 * time.Millisecond

// RequestNewlineApart sends a request like Request, its newline in a write
// of its own newlinePause after the rest of the line.
func (k *Kernel) RequestNewlineApart(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return k.rpc.CallNewlineApart(ctx, method, params, newlinePause)
}

// RequestLineOf sends a request like Request whose line is exactly size
// bytes long, newline excluded; params(n) grows the params' encoding by n.
func (k *Kernel) RequestLineOf(ctx context.Context, method string, params func(n int) any, size int) (json.RawMessage, error) {
	return k.rpc.CallLineOf(ctx, method, params, size)
}

// Notify sends a notification, as the harness's own $/cancelRequest does.
func (k *Kernel) Notify(method string, params any) error {
	return k.rpc.Notify(method, params)
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

// OfferVersions starts a kernel as Get does (a start slot, the same
// initialize timeout, the time it waited for a CPU not counted), sends an
// initialize offering only versions, and returns the kernel's raw answer
// or error; the kernel is then closed. A kernel that does not answer in
// time is an error naming that.
func (p *Pool) OfferVersions(ctx context.Context, versions []string) (json.RawMessage, error) {
	release, err := p.startSlot(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	timeout := p.InitTimeout
	if first := p.FirstStart(); StartMargin*first > timeout {
		timeout = StartMargin * first
	}
	launched := time.Now()
	ep, err := p.Launcher.Launch(ctx)
	if err != nil {
		return nil, err
	}
	k := &Kernel{ep: ep, routes: map[string]*route{}}
	k.rpc = jsonrpc.New(ep.Out, ep.In, nil, k.handle, jsonrpc.Options{Handshake: true})
	k.rpc.Start()
	defer k.Close()
	ictx, clock := newStartClock(ctx, ep.Starved, timeout, launched)
	defer clock.stop()
	raw, err := k.rpc.CallRaw(ictx, wire.MethodInitialize, wire.InitializeParams{
		ProtocolVersions: versions,
		Harness:          wire.Peer{Name: "conform", Version: Version},
	})
	if err != nil && clock.expired(ictx) {
		return nil, fmt.Errorf("no answer to initialize within %v%s", timeout, clock.note())
	}
	return raw, err
}
