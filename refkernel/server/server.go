package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/spec/wire"
)

// Serve runs the wire server until the input ends, shutdown has been
// answered, or ctx is done. Sessions still running then are cancelled and
// Serve waits for them to finish. A clean end (EOF, shutdown) returns nil.
func Serve(ctx context.Context, k *refkernel.Kernel, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &watchWriter{w: out, seen: make(chan struct{})}
	s := &server{k: k, ctx: ctx, out: w, cancels: map[int]context.CancelFunc{}}
	s.conn = jsonrpc.New(in, w, nil, s.handle, jsonrpc.Options{Validate: validate})
	s.conn.Start()

	var err error
	select {
	case <-s.conn.Done():
		err = s.conn.Err()
	case <-w.seen:
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

// server is one connection's state.
type server struct {
	k           *refkernel.Kernel
	ctx         context.Context
	conn        *jsonrpc.Conn
	out         *watchWriter
	initialized atomic.Bool

	mu       sync.Mutex
	closing  bool                       // Serve is returning: no new requests
	stopping bool                       // shutdown was asked: no new sessions
	wg       sync.WaitGroup             // every handler
	runs     sync.WaitGroup             // session/run handlers
	cancels  map[int]context.CancelFunc // the running sessions, by handler
	nextRun  int
}

// enter counts a handler in, unless the server is closing.
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
		return nil, nil // $/cancelRequest is handled by the transport; nothing else is expected
	}
	if !s.enter() {
		return nil, rpcError(wire.CodeInternal, "the kernel is shutting down")
	}
	defer s.wg.Done()
	// A request ends with its own context or with the server.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()

	switch req.Method {
	case wire.MethodInitialize:
		return s.initialize(req.Params)
	case wire.MethodShutdown:
		s.shutdown()
		s.out.await(req.ID)
		return wire.Empty{}, nil
	case wire.MethodSessionRun, wire.MethodSessionCancel, wire.MethodSessionContinue, wire.MethodSessionSpawn,
		wire.MethodMemoryWrite, wire.MethodFrontendDecide:
		if !s.initialized.Load() {
			return nil, rpcError(wire.CodeInvalidRequest, "initialize first")
		}
	default:
		return nil, rpcError(wire.CodeMethodNotFound, "unknown method "+req.Method)
	}
	switch req.Method {
	case wire.MethodSessionRun:
		return s.run(ctx, req.Params)
	case wire.MethodSessionCancel:
		return s.cancel(req.Params)
	case wire.MethodSessionContinue:
		return s.resume(req.Params)
	case wire.MethodMemoryWrite:
		return s.memoryWrite(req.Params) // dfirst.go
	case wire.MethodFrontendDecide:
		return s.decide(req.Params) // decide.go
	default:
		return s.spawn(ctx, req.Params) // spawn.go
	}
}

func (s *server) initialize(raw json.RawMessage) (any, error) {
	var p wire.InitializeParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, rpcError(wire.CodeInvalidParams, err.Error())
	}
	if s.initialized.Load() {
		return nil, rpcError(wire.CodeInvalidRequest, "initialize was already answered on this connection")
	}
	if !slices.Contains(p.ProtocolVersions, wire.Version) {
		return nil, rpcError(wire.CodeVersionMismatch, "this kernel speaks only "+wire.Version)
	}
	s.initialized.Store(true)
	return s.k.Info(), nil
}

// shutdown cancels every running session and waits until each has ended
// (session-end hooks, end session/meta row, session/run answer), so that the
// shutdown answer comes last.
func (s *server) shutdown() {
	s.mu.Lock()
	s.stopping = true
	for _, cancel := range s.cancels {
		cancel()
	}
	s.mu.Unlock()
	s.runs.Wait()
	// The sessions' answers are written after their handlers return.
	s.conn.WaitOthers()
}

// startRun registers a session/run handler unless shutdown has begun.
func (s *server) startRun(cancel context.CancelFunc) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping {
		return 0, false
	}
	s.nextRun++
	s.runs.Add(1)
	s.cancels[s.nextRun] = cancel
	return s.nextRun, true
}

func (s *server) endRun(id int) {
	s.mu.Lock()
	delete(s.cancels, id)
	s.mu.Unlock()
	s.runs.Done()
}

func (s *server) run(ctx context.Context, raw json.RawMessage) (any, error) {
	var p wire.RunParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, rpcError(wire.CodeInvalidParams, err.Error())
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	id, ok := s.startRun(cancel)
	if !ok {
		return nil, rpcError(wire.CodeInvalidRequest, "the kernel is shutting down")
	}
	defer s.endRun(id)
	res, err := s.k.Run(ctx, connHost{s.conn}, p)
	var ce *refkernel.ConfigError
	switch {
	case errors.As(err, &ce):
		return nil, rpcError(wire.CodeConfigRejected, ce.Error())
	case errors.Is(err, refkernel.ErrSessionRunning):
		return nil, rpcError(wire.CodeInvalidRequest, err.Error())
	case err != nil:
		return nil, rpcError(wire.CodeInternal, err.Error())
	}
	return res, nil
}

func (s *server) cancel(raw json.RawMessage) (any, error) {
	var p wire.CancelParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, rpcError(wire.CodeInvalidParams, err.Error())
	}
	if err := s.k.Cancel(p.SessionID); err != nil {
		return nil, rpcError(wire.CodeUnknownSession, "unknown session "+p.SessionID)
	}
	return wire.Empty{}, nil
}

// resume serves session/continue: the user's message resumes a session a
// soft limit paused (TA-09).
func (s *server) resume(raw json.RawMessage) (any, error) {
	var p wire.ContinueParams
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, rpcError(wire.CodeInvalidParams, err.Error())
	}
	switch err := s.k.Continue(p.SessionID, p.Message); {
	case errors.Is(err, refkernel.ErrUnknownSession):
		return nil, rpcError(wire.CodeUnknownSession, "unknown session "+p.SessionID)
	case err != nil:
		return nil, rpcError(wire.CodeInvalidParams, "session "+p.SessionID+" is not paused by a soft limit")
	}
	return wire.Empty{}, nil
}

func rpcError(code int, msg string) *jsonrpc.Error { return &jsonrpc.Error{Code: code, Message: msg} }

// validate checks known methods against the protocol schemas; an unknown
// method is left to the handler, which answers it with method-not-found.
func validate(method string, part jsonrpc.Part, raw json.RawMessage) error {
	if !slices.Contains(wire.Methods(), method) {
		return nil
	}
	return wire.Validate(method, part.String(), raw)
}
