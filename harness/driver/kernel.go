package driver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

// Fault is a protocol-level failure of the kernel: the scenario's verdict is
// `error`, not `fail`.
type Fault struct {
	What   string // what the kernel did, in one sentence
	Stderr string // tail of the kernel's stderr
}

func (f *Fault) Error() string {
	if f.Stderr == "" {
		return "kernel error: " + f.What
	}
	return "kernel error: " + f.What + "\n--- kernel stderr (tail) ---\n" + strings.TrimRight(f.Stderr, "\n")
}

// Kernel is one running, initialized kernel instance.
type Kernel struct {
	ep   *adapter.Endpoint
	rpc  *jsonrpc.Conn
	Info wire.InitializeResult

	mu     sync.Mutex
	routes map[string]*route
	stray  int // messages for no routed session
	faults []string

	// lastArrival is when the kernel last sent anything (unix nanoseconds):
	// a kernel still sending is never called hung (deadline.expire).
	lastArrival atomic.Int64

	// startUp is how long the kernel took to start and answer initialize,
	// not counting the time it waited for a CPU.
	startUp time.Duration
}

// Start launches a kernel and runs the initialize handshake.
func Start(ctx context.Context, l adapter.Launcher, timeout time.Duration) (*Kernel, error) {
	return start(ctx, l, timeout, "")
}

// start names the initialize timeout's setting (timeoutName) when the
// kernel does not answer in time: the scenario timeout does not apply yet.
func start(ctx context.Context, l adapter.Launcher, timeout time.Duration, timeoutName string) (*Kernel, error) {
	launched := time.Now()
	ep, err := l.Launch(ctx)
	if err != nil {
		return nil, err
	}
	k := &Kernel{ep: ep, routes: map[string]*route{}}
	k.rpc = jsonrpc.New(ep.Out, ep.In, nil, k.handle, jsonrpc.Options{
		Validate:    validate,
		OnViolation: func(v *jsonrpc.Violation) { k.fault(v.Error()) },
		Arrive:      k.arrive,
		Handshake:   true, // nothing before initialize is answered (PROTOCOL.md §4)
	})
	k.rpc.Start()
	ictx, clock := newStartClock(ctx, ep.Starved, timeout, launched)
	defer clock.stop()
	err = k.rpc.Call(ictx, wire.MethodInitialize, wire.InitializeParams{
		ProtocolVersions: []string{wire.Version},
		Harness:          wire.Peer{Name: "conform", Version: Version},
	}, &k.Info)
	if err == nil && k.Info.ProtocolVersion != wire.Version {
		err = fmt.Errorf("kernel chose protocol version %q, harness speaks %q", k.Info.ProtocolVersion, wire.Version)
	}
	if err != nil {
		f := k.explain(err, "initialize")
		if ctx.Err() != nil {
			f.What = fmt.Sprintf("initialize was not answered before the run was stopped (%v)", context.Cause(ctx))
		} else if clock.expired(ictx) {
			limit := timeout.String()
			if timeoutName != "" {
				limit += ", " + timeoutName
			}
			f.What = fmt.Sprintf("no answer to initialize within %s%s: the kernel hangs or starts too slowly", limit, clock.note())
			if fs := k.Faults(); len(fs) > 0 {
				f.What += "; " + strings.Join(fs, "; ")
			}
		}
		k.Close()
		return nil, f
	}
	k.startUp = clock.spent()
	return k, nil
}

// validate checks a kernel → harness part against its schema, then decodes
// it as the fakes and checks will: a part the schema accepts but Go cannot
// hold (a number beyond its field) is a violation naming the field, never a
// row silently missing from what the checks see. wire.Admit does both from
// one reading of the part (the transport has already refused repeated keys).
func validate(method string, part jsonrpc.Part, raw json.RawMessage) error {
	return wire.Admit(method, part.String(), raw)
}

// Version is the harness version reported in initialize.
var Version = "0.1.0"

func (k *Kernel) fault(s string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.faults) < 20 && !slices.Contains(k.faults, s) {
		k.faults = append(k.faults, s)
	}
}

// Faults lists protocol violations seen so far.
func (k *Kernel) Faults() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.faults...)
}

// Healthy reports whether the kernel can be reused.
func (k *Kernel) Healthy() bool {
	select {
	case <-k.rpc.Done():
		return false
	default:
	}
	return len(k.Faults()) == 0
}

// Close stops the kernel (the whole process group for a subprocess).
func (k *Kernel) Close() {
	k.rpc.Close()
	k.ep.Close()
}

// explain turns a failed call into a Fault that says what the kernel did.
func (k *Kernel) explain(err error, method string) *Fault {
	var f *Fault
	if errors.As(err, &f) {
		return f
	}
	what := ""
	var v *jsonrpc.Violation
	var te *timeoutError
	var sr *stillRunningError
	if errors.Is(err, adapter.ErrInputClosed) {
		// Our write found the kernel's input gone before our read found
		// why: wait for the read side, so that the message is made from
		// what the kernel wrote and how it ended, whichever side noticed
		// first.
		if k.settled() {
			err = jsonrpc.ErrClosed
		} else {
			what = fmt.Sprintf("the kernel closed its input (stdin) during %s and kept running", method)
		}
	}
	switch {
	case what != "":
	case errors.As(err, &sr):
		what = fmt.Sprintf("no answer to %s after %v: the kernel was still sending (its last message came %v before the end), so this is no hang, but the session did not end within %d times the scenario timeout", method, sr.ran.Round(time.Millisecond), sr.idle.Round(time.Millisecond), activeCapFactor)
	case errors.As(err, &te):
		what = fmt.Sprintf("no answer to %s before the scenario timeout (hang)%s", method, te.note())
	case errors.Is(err, context.DeadlineExceeded):
		what = fmt.Sprintf("no answer to %s before the scenario timeout (hang)", method)
	case errors.Is(err, jsonrpc.ErrClosed) && errors.As(k.rpc.Err(), &v):
		what = fmt.Sprintf("connection broke during %s: %v", method, v)
		if method == wire.MethodInitialize {
			what += k.endOf()
		} // else at once: the kernel may still be running, serving other sessions
	case errors.Is(err, jsonrpc.ErrClosed):
		what = k.exitText(method)
	default:
		var rerr *jsonrpc.Error
		if errors.As(err, &rerr) {
			what = fmt.Sprintf("%s answered with error %d: %s", method, rerr.Code, rerr.Message)
		} else {
			what = fmt.Sprintf("%s failed: %v", method, err)
		}
	}
	for _, f := range k.Faults() {
		if !strings.Contains(what, f) {
			what += "; " + f
		}
	}
	return &Fault{What: what, Stderr: k.ep.StderrTail()}
}

// settleWait bounds how long a failed write waits for the read side to
// end, and a kernel that broke the protocol during initialize for its exit.
// A kernel that dies ends both in milliseconds; one still running after
// this is reported as running.
const settleWait = 2 * time.Second

// settled waits for the connection's read side to end after a write found
// the kernel's input closed; false when it did not (the kernel closed its
// stdin and keeps running).
func (k *Kernel) settled() bool {
	t := time.NewTimer(settleWait)
	defer t.Stop()
	select {
	case <-k.rpc.Done():
		return true
	case <-t.C:
		return false
	}
}

// endOf says how a kernel that broke the protocol during initialize ended:
// nothing else runs on it yet, so waiting a moment for its exit costs
// nothing, and the message names the exit status whether the kernel had
// exited before conform read its bad line or after.
func (k *Kernel) endOf() string {
	t := time.NewTimer(settleWait)
	defer t.Stop()
	select {
	case <-k.ep.Exited():
	case <-t.C:
		return "; the kernel was still running, and conform stopped it"
	}
	if err := k.ep.ExitErr(); err != nil {
		return fmt.Sprintf("; then the kernel exited (%v)", err)
	}
	return "; then the kernel exited (status 0)"
}

func (k *Kernel) exitText(method string) string {
	select {
	case <-k.ep.Exited():
	case <-time.After(time.Second):
		if err := k.rpc.Err(); err != nil {
			return fmt.Sprintf("connection broke during %s: %v", method, err)
		}
		return fmt.Sprintf("kernel closed its output during %s", method)
	}
	if held := k.ep.OutputHeld(); held != "" {
		return held
	}
	if err := k.ep.ExitErr(); err != nil {
		return fmt.Sprintf("kernel exited during %s (%v)", method, err)
	}
	if err := k.rpc.Err(); err != nil {
		return fmt.Sprintf("connection broke during %s: %v", method, err)
	}
	return fmt.Sprintf("kernel exited during %s", method)
}

// Register routes a session's traffic to a world. Child sessions are routed
// when their session_meta row names a routed parent.
func (k *Kernel) Register(session string, w *fakes.World) {
	w.Agents.Bind(k, session) // spawn-capable fakes call back through k
	k.mu.Lock()
	defer k.mu.Unlock()
	// Every session of a scenario counts against the same limits.
	for _, r := range k.routes {
		if r.world == w {
			k.routes[session] = &route{world: w, load: r.load}
			return
		}
	}
	k.routes[session] = &route{world: w, load: &load{root: session}}
}

// Unregister stops routing a scenario's sessions.
func (k *Kernel) Unregister(w *fakes.World) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for id, r := range k.routes {
		if r.world == w {
			delete(k.routes, id)
		}
	}
}

// arrive routes and records every message in arrival order (it runs in the
// connection's read loop); handle then answers requests concurrently.
func (k *Kernel) arrive(req *jsonrpc.Request) {
	k.lastArrival.Store(time.Now().UnixNano())
	session := fakes.SessionOf(req.Params)
	if req.Method == wire.NotifySessionMeta {
		k.adoptChild(req.Params)
	}
	k.mu.Lock()
	w, res := k.lookupLocked(session, len(req.Params))
	k.mu.Unlock()
	switch res {
	case dropped:
		return
	case unknown:
		// A request whose params break the schema is reported as that (by
		// the transport's validation), not as a routing problem.
		if req.IsNotification() || wire.Validate(req.Method, wire.PartParams, req.Params) == nil {
			k.fault(fmt.Sprintf("%s for unknown session %q", req.Method, session))
		}
		return
	}
	if req.IsNotification() {
		w.Notify(req.Method, req.Params)
		return
	}
	req.Note = routed{w, w.Accept(req.Method, req.Params)}
}

type routed struct {
	world   *fakes.World
	pending *fakes.Pending
}

func (k *Kernel) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	r, ok := req.Note.(routed)
	if !ok {
		if req.IsNotification() {
			return nil, nil
		}
		return nil, &jsonrpc.Error{Code: wire.CodeUnknownSession, Message: "unknown session " + fakes.SessionOf(req.Params)}
	}
	return r.world.Respond(ctx, r.pending)
}

func (k *Kernel) adoptChild(raw json.RawMessage) {
	var m wire.SessionMeta
	if err := wire.DecodeInto(raw, &m); err != nil {
		k.fault(fmt.Sprintf("%s params do not decode: %v", wire.NotifySessionMeta, err)) // validation let it through: a defect, never a silent drop
		return
	}
	if m.ParentSessionID == "" {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, known := k.routes[m.SessionID]; known {
		return
	}
	if p, ok := k.routes[m.ParentSessionID]; ok {
		k.routes[m.SessionID] = &route{world: p.world, load: p.load}
	}
}

// Run runs one root session to its end. A non-nil error is always a *Fault.
func (k *Kernel) Run(ctx context.Context, w *fakes.World, p wire.RunParams, timeout time.Duration) (wire.RunSessionResult, error) {
	k.Register(p.SessionID, w)
	rctx, dl := k.withDeadline(ctx, timeout)
	defer dl.stop()
	// A kernel that stops reading its input can block our writes; past the
	// scenario's deadline, stop it so that nothing waits on it any more.
	stop := context.AfterFunc(rctx, func() { k.ep.Close() })
	defer stop()
	var res wire.RunSessionResult
	err := dl.err(rctx, k.rpc.Call(rctx, wire.MethodSessionRun, p, &res))
	if err != nil {
		var rerr *jsonrpc.Error
		if errors.As(err, &rerr) && rerr.Code == wire.CodeConfigRejected {
			return res, &ConfigRejected{Message: rerr.Message}
		}
		return res, k.explain(err, wire.MethodSessionRun)
	}
	if fs := k.Faults(); len(fs) > 0 {
		return res, &Fault{What: strings.Join(fs, "; "), Stderr: k.ep.StderrTail()}
	}
	if res.SessionID != p.SessionID {
		return res, &Fault{What: fmt.Sprintf("session/run answered for session %q, asked for %q", res.SessionID, p.SessionID)}
	}
	return res, nil
}

// StderrMark and StderrSince let a scenario take what its kernel wrote to
// stderr while it ran (for a repro bundle); see adapter.Endpoint.
func (k *Kernel) StderrMark() int64 { return k.ep.StderrMark() }

// CPUWait is how long the kernel and the harness have waited for a CPU
// (adapter.Endpoint.CPUWait).
func (k *Kernel) CPUWait() time.Duration { return k.ep.CPUWait() }

// KernelCPUWait is how long the kernel's processes alone have waited for
// a CPU (adapter.Endpoint.KernelCPUWait).
func (k *Kernel) KernelCPUWait() time.Duration { return k.ep.KernelCPUWait() }

// WatchdogWait is what a watchdog does not count against the kernel
// (adapter.Endpoint.WatchdogWait).
func (k *Kernel) WatchdogWait() time.Duration { return k.ep.WatchdogWait() }

// StderrSince: see StderrMark.
func (k *Kernel) StderrSince(mark int64) (string, int64) { return k.ep.StderrSince(mark) }

// ConfigRejected is the kernel refusing a session config before it started
// (a legitimate answer that some scenarios expect).
type ConfigRejected struct{ Message string }

func (c *ConfigRejected) Error() string { return "kernel rejected the session config: " + c.Message }

// Cancel asks the kernel to cancel a session.
func (k *Kernel) Cancel(ctx context.Context, session string) error {
	return k.rpc.Call(ctx, wire.MethodSessionCancel, wire.CancelParams{SessionID: session}, nil)
}

// CancelWithNext cancels a session in the same write as the next message
// the harness sends the kernel (a call's answer), after it: the kernel
// reads the answer and the cancel together, so the cancel lands when the
// session has no call in flight. It returns at once; answered waits for
// the kernel's answer to the cancel.
func (k *Kernel) CancelWithNext(session string) (answered func(context.Context) error, err error) {
	answer, err := k.rpc.CallWithNext(wire.MethodSessionCancel, wire.CancelParams{SessionID: session})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) error { _, err := answer(ctx); return err }, nil
}

// Spawn sends session/spawn, as a spawn-capable tool does while its
// tool/invoke is in flight, and returns the child's result.
func (k *Kernel) Spawn(ctx context.Context, p wire.SpawnParams) (wire.RunSessionResult, error) {
	var res wire.RunSessionResult
	err := k.rpc.Call(ctx, wire.MethodSessionSpawn, p, &res)
	return res, err
}

// Shutdown asks the kernel to exit cleanly.
func (k *Kernel) Shutdown(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	// Every verdict is in by now, and Close stops the kernel whatever it
	// answers; a kernel that mishandles shutdown cannot change a report.
	_ = k.rpc.Call(ctx, wire.MethodShutdown, wire.Empty{}, nil)
	k.Close()
}
