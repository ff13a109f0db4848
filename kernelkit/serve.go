package kernelkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

// Option tunes Serve.
type Option func(*server)

// CheckOutgoing validates every message the kit writes against its schema
// before it goes out, and reports each failure to report (the message is
// still sent: the harness would see it anyway). Use it while developing and
// in tests (report = t.Error); it costs a schema validation per message.
func CheckOutgoing(report func(error)) Option {
	return func(s *server) { s.check = report }
}

// Serve speaks conform.wire/v1 for k on in and out until the input ends,
// shutdown has been answered, or ctx is done. Sessions still running then
// are cancelled and Serve waits for them. A clean end (EOF, shutdown)
// returns nil. Every message the harness sends is validated against the
// protocol's schemas before k sees it.
func Serve(ctx context.Context, k Kernel, in io.Reader, out io.Writer, opts ...Option) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &server{k: k, ctx: ctx, runs: map[string]context.CancelFunc{}, ended: map[string]bool{}}
	for _, o := range opts {
		if o != nil { // Launcher(name, f, nil) is a kernel without options
			o(s)
		}
	}
	s.out = &outWriter{w: out, seen: make(chan struct{}), check: s.check, answers: map[string]string{}}
	s.conn = jsonrpc.New(in, s.out, nil, s.handle, jsonrpc.Options{Validate: validate})
	s.host = &Host{conn: s.conn}
	s.conn.Start()

	var err error
	select {
	case <-s.conn.Done():
		err = s.conn.Err()
	case <-s.out.seen:
	case <-ctx.Done():
		err = ctx.Err()
	}
	// Stop taking requests, cancel the sessions, and close the connection
	// first, so that a session ending now fails its last calls at once
	// instead of waiting for a harness that has gone.
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	cancel()
	_ = s.conn.Close()
	s.wg.Wait()
	return err
}

// Main serves k on stdin and stdout, as `conform run --kernel` starts it,
// and exits: status 0 after shutdown or the end of stdin, 1 (the reason on
// stderr) after a protocol failure. SIGINT and SIGTERM end it like the end
// of stdin. Nothing else may write to stdout: log to stderr.
func Main(k Kernel, opts ...Option) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := Serve(ctx, k, os.Stdin, os.Stdout, opts...)
	stop()
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, k.Info().Name+":", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Launcher runs a fresh kernel from newKernel, in this process over a pipe,
// for every kernel instance the harness starts: pass it to
// conformtest.TestKernel or runner.Options.Launcher.
func Launcher(name string, newKernel func() Kernel, opts ...Option) adapter.Launcher {
	return adapter.InProcess{Name: name, Serve: func(ctx context.Context, in io.Reader, out io.Writer) error {
		return Serve(ctx, newKernel(), in, out, opts...)
	}}
}

// server is one connection's state.
type server struct {
	k     Kernel
	ctx   context.Context
	conn  *jsonrpc.Conn
	host  *Host
	out   *outWriter
	check func(error)
	ready atomic.Bool // initialize answered

	mu       sync.Mutex
	closing  bool                          // Serve is returning: no new requests
	stopping bool                          // shutdown was asked: no new sessions
	wg       sync.WaitGroup                // every handler
	running  sync.WaitGroup                // session/run handlers
	runs     map[string]context.CancelFunc // running root sessions
	ended    map[string]bool               // root sessions that have ended
}

func (s *server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.wg.Add(1)
	return true
}

func (s *server) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if req.IsNotification() {
		return nil, nil // $/cancelRequest is the transport's; the harness sends no other
	}
	if !s.enter() {
		return nil, Errorf(wire.CodeInternal, "the kernel is shutting down")
	}
	defer s.wg.Done()
	s.out.expect(req.ID, req.Method)
	// A request ends with its own context or with the server.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.ctx, cancel)()

	res, err := s.dispatch(ctx, req)
	if err != nil {
		return nil, answerError(err)
	}
	return res, nil
}

func (s *server) dispatch(ctx context.Context, req *jsonrpc.Request) (any, error) {
	switch req.Method {
	case wire.MethodInitialize:
		return s.initialize(req.Params)
	case wire.MethodShutdown:
		s.shutdown()
		s.out.await(req.ID)
		return wire.Empty{}, nil
	case wire.MethodSessionRun, wire.MethodSessionCancel, wire.MethodSessionContinue, wire.MethodSessionSpawn,
		wire.MethodMemoryWrite, wire.MethodFrontendDecide:
		if !s.ready.Load() {
			return nil, Errorf(wire.CodeInvalidRequest, "initialize first")
		}
	default:
		return nil, Errorf(wire.CodeMethodNotFound, "unknown method %s", req.Method)
	}
	switch req.Method {
	case wire.MethodSessionRun:
		return decoded(req.Params, func(p wire.RunParams) (any, error) { return s.run(ctx, p) })
	case wire.MethodSessionCancel:
		return decoded(req.Params, s.cancel)
	case wire.MethodSessionContinue:
		return decoded(req.Params, s.resume)
	case wire.MethodMemoryWrite:
		return decoded(req.Params, s.memoryWrite)
	case wire.MethodFrontendDecide:
		return decoded(req.Params, s.decide)
	default:
		return decoded(req.Params, func(p wire.SpawnParams) (any, error) { return s.spawn(ctx, p) })
	}
}

// decoded decodes params (already schema-valid) and calls f.
func decoded[P any](raw json.RawMessage, f func(P) (any, error)) (any, error) {
	var p P
	if err := wire.DecodeInto(raw, &p); err != nil {
		return nil, Errorf(wire.CodeInvalidParams, "%v", err)
	}
	return f(p)
}

func (s *server) initialize(raw json.RawMessage) (any, error) {
	var p wire.InitializeParams
	if err := wire.DecodeInto(raw, &p); err != nil {
		return nil, Errorf(wire.CodeInvalidParams, "%v", err)
	}
	if s.ready.Load() {
		return nil, Errorf(wire.CodeInvalidRequest, "initialize was already answered on this connection")
	}
	if !slices.Contains(p.ProtocolVersions, wire.Version) {
		return nil, Errorf(wire.CodeVersionMismatch, "this kernel speaks only %s", wire.Version)
	}
	s.ready.Store(true)
	return s.k.Info().result(), nil
}

// shutdown cancels every running session and waits until each has been
// answered, so that the shutdown answer comes last.
func (s *server) shutdown() {
	s.mu.Lock()
	s.stopping = true
	for _, cancel := range s.runs {
		cancel()
	}
	s.mu.Unlock()
	s.running.Wait()
	s.conn.WaitOthers() // the sessions' answers are written after their handlers return
}

func (s *server) run(ctx context.Context, p wire.RunParams) (any, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	switch {
	case s.stopping:
		s.mu.Unlock()
		return nil, Errorf(wire.CodeInvalidRequest, "the kernel is shutting down")
	case s.runs[p.SessionID] != nil:
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: %s", ErrSessionRunning, p.SessionID)
	}
	s.runs[p.SessionID] = cancel
	s.running.Add(1)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.runs, p.SessionID)
		s.ended[p.SessionID] = true
		s.mu.Unlock()
		s.running.Done()
	}()
	return s.k.Run(ctx, s.host, p)
}

// state says whether the kit has seen a root session: running, ended, or
// never.
func (s *server) state(id string) (running, ended bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs[id] != nil, s.ended[id]
}

func (s *server) cancel(p wire.CancelParams) (any, error) {
	if c, ok := s.k.(Canceller); ok {
		return wire.Empty{}, c.Cancel(p.SessionID)
	}
	s.mu.Lock()
	cancel, ended := s.runs[p.SessionID], s.ended[p.SessionID]
	s.mu.Unlock()
	switch {
	case cancel != nil:
		cancel()
	case !ended:
		return nil, fmt.Errorf("%w: %s", ErrUnknownSession, p.SessionID)
	}
	return wire.Empty{}, nil
}

func (s *server) resume(p wire.ContinueParams) (any, error) {
	if c, ok := s.k.(Continuer); ok {
		return wire.Empty{}, c.Continue(p.SessionID, p.Message)
	}
	if running, _ := s.state(p.SessionID); running {
		return nil, fmt.Errorf("%w: %s (this kernel has no soft limits)", ErrNotPaused, p.SessionID)
	}
	return nil, fmt.Errorf("%w: no running session %s", ErrUnknownSession, p.SessionID)
}

func (s *server) spawn(ctx context.Context, p wire.SpawnParams) (any, error) {
	sp, ok := s.k.(Spawner)
	if !ok {
		return nil, Errorf(wire.CodeMethodNotFound, "this kernel runs no sub-agents (session/spawn)")
	}
	return sp.Spawn(ctx, s.host, p)
}

func (s *server) memoryWrite(p wire.MemoryWriteParams) (any, error) {
	if m, ok := s.k.(MemoryWriter); ok {
		return wire.Empty{}, m.WriteMemory(p)
	}
	// Running or ended, a session of the agent-loop profile is not a
	// deterministic-first one (PROTOCOL.md §17.5); only an id the kit
	// never saw is unknown.
	if running, ended := s.state(p.SessionID); running || ended {
		return nil, Errorf(wire.CodeInvalidParams, "session %s does not run the deterministic-first profile", p.SessionID)
	}
	return nil, fmt.Errorf("%w: session %s", ErrUnknownSession, p.SessionID)
}

func (s *server) decide(p wire.FrontendDecideParams) (any, error) {
	if d, ok := s.k.(Decider); ok {
		return d.Decide(p)
	}
	if running, _ := s.state(p.SessionID); !running {
		return nil, fmt.Errorf("%w: no running session %s", ErrUnknownSession, p.SessionID)
	}
	return NothingPending(s.host, p), nil
}

// NothingPending answers frontend/decide as a kernel with no pending plan
// item and no waiting interactive call does (PROTOCOL.md §6.7): every
// decision and interactive response is rejected with INVALID_CLIENT_EVENT
// and reported by a frontend_error event. A Decider may use it for a
// session in which nothing is pending.
func NothingPending(h *Host, p wire.FrontendDecideParams) wire.FrontendDecideResult {
	res := wire.FrontendDecideResult{Results: []wire.DecisionOutcome{}}
	reject := func(key, id string) string {
		msg := fmt.Sprintf("%s %s is not pending in session %s", key, id, p.SessionID)
		h.Event(wire.Event{SessionID: p.SessionID, Kind: wire.EventFrontendError, Producer: Producer, Payload: map[string]any{
			"connection": p.Connection, key: id, "category": wire.FrontendErrInvalidClientEvent, "message": msg,
		}})
		return msg
	}
	for _, d := range p.Decisions {
		msg := reject("plan_item_id", d.PlanItemID)
		res.Results = append(res.Results, wire.DecisionOutcome{PlanItemID: d.PlanItemID, Category: wire.FrontendErrInvalidClientEvent, Message: msg})
	}
	for _, r := range p.InteractiveResponses {
		msg := reject("call_id", r.CallID)
		res.InteractiveResults = append(res.InteractiveResults, wire.InteractiveOutcome{CallID: r.CallID, Category: wire.FrontendErrInvalidClientEvent, Message: msg})
	}
	return res
}

// validate checks known methods against the protocol schemas; an unknown
// method is left to the handler, which answers it with method-not-found.
func validate(method string, part jsonrpc.Part, raw json.RawMessage) error {
	if !slices.Contains(wire.Methods(), method) {
		return nil
	}
	return wire.Validate(method, part.String(), raw)
}
