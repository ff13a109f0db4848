package kernelkit

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

// Kernel is what an adapter implements: who it is, and how it runs one
// root session. Run is called once per session/run, concurrently for
// sessions that overlap; it returns when the session has ended, with its
// result. An error instead of a result answers session/run with an error
// (see Errorf and the Err values for the codes); a session that started
// ends with a result, whatever its status.
//
// ctx ends when the session is cancelled (session/cancel, unless the
// kernel is a Canceller), at shutdown, or when the harness goes away. A
// session whose ctx ended still runs its session-end hooks and sends its
// end row, on a context of its own (context.WithoutCancel), then returns
// status cancelled.
type Kernel interface {
	Info() Info
	Run(ctx context.Context, h *Host, p wire.RunParams) (wire.RunSessionResult, error)
}

// Info is the kernel's initialize answer.
type Info struct {
	Name, Version string
	// Capabilities are the optional capabilities (PROTOCOL.md §15) the
	// kernel really has; nil declares none.
	Capabilities []string
	// Readings are the kernel's readings of open points (§15); nil
	// declares none, and every check then assumes the digest's default.
	Readings map[string]string
	// Glue names the requirements whose verdict depends on the adapter's
	// glue, not on the framework under it (§15); reports label them glue.
	Glue []wire.GlueNote
}

func (i Info) result() wire.InitializeResult {
	return wire.InitializeResult{
		ProtocolVersion: wire.Version,
		Kernel:          wire.Peer{Name: i.Name, Version: i.Version},
		Capabilities:    i.Capabilities,
		Readings:        i.Readings,
		Glue:            i.Glue,
	}
}

// The optional parts of a kernel. Serve uses a method when the Kernel has
// it and otherwise answers as documented on each.

// Canceller cancels a session and its descendants (session/cancel). Without
// it, session/cancel ends the ctx of the session's Run; an id that names no
// session the kit has seen is ErrUnknownSession, one that has ended is
// answered {} (PROTOCOL.md §6.3). A kernel with children of its own (a
// Spawner) implements it, since only it knows its children.
type Canceller interface {
	Cancel(sessionID string) error
}

// Continuer resumes a session a soft limit paused (session/continue,
// capability bound.soft_limits). Without it, a running session is
// ErrNotPaused and any other ErrUnknownSession.
type Continuer interface {
	Continue(sessionID, message string) error
}

// Spawner runs a child session for a spawn-capable tool's session/spawn
// and returns the child's result once it has ended. Without it,
// session/spawn is answered CodeMethodNotFound: the kernel has no
// sub-agents, and the SA rows fail, which is the finding.
type Spawner interface {
	Spawn(ctx context.Context, h *Host, p wire.SpawnParams) (wire.RunSessionResult, error)
}

// Decider takes another frontend connection's decisions (frontend/decide,
// PA-16). Without it, the kit answers for a running session as a kernel
// with nothing pending does (PROTOCOL.md §6.7): every decision and every
// interactive response rejected with INVALID_CLIENT_EVENT, each with its
// frontend_error event; ErrUnknownSession for a session not running.
type Decider interface {
	Decide(p wire.FrontendDecideParams) (wire.FrontendDecideResult, error)
}

// MemoryWriter commits a running tool's memory write (memory/write, the
// deterministic-first profile). Without it, a running or ended session is
// refused with CodeInvalidParams (not a deterministic-first session) and an
// id the kit never saw is ErrUnknownSession.
type MemoryWriter interface {
	WriteMemory(p wire.MemoryWriteParams) error
}

// Error is a JSON-RPC error: what a Host call returns when the harness
// answers with an error (Code says which: wire.CodeProcessCrashed for a
// crashed tool, wire.CodeHookFailed for a failed subscriber, ...), and what
// a Kernel method may return to answer with a code of its own.
type Error = jsonrpc.Error

// ProtocolViolation is what a Host call returns when the harness's answer
// breaks its schema: for a hook/dispatch, the subscriber's
// INVALID_RESPONSE (PROTOCOL.md §3).
type ProtocolViolation = jsonrpc.Violation

// ErrClosed is what a Host call returns once the connection has ended.
var ErrClosed = jsonrpc.ErrClosed

// Errors a Kernel method returns to get their protocol codes.
var (
	ErrUnknownSession = errors.New("unknown session")                      // CodeUnknownSession
	ErrSessionRunning = errors.New("a session with this id is running")    // CodeInvalidRequest
	ErrNotPaused      = errors.New("the session is not paused")            // CodeInvalidParams
	ErrCancelled      = errors.New("cancelled before the session started") // CodeCancelled
)

// Errorf makes an error answered with the given code.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// RejectConfig refuses a session config before the session starts
// (CodeConfigRejected): nothing may have been dispatched or sent for it.
func RejectConfig(format string, args ...any) *Error {
	return Errorf(wire.CodeConfigRejected, format, args...)
}

// Code is the JSON-RPC error code an error carries, if any.
func Code(err error) (int, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e.Code, true
	}
	return 0, false
}

// answerError turns what a Kernel method returned into the error answer.
func answerError(err error) *Error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, ErrUnknownSession):
		return Errorf(wire.CodeUnknownSession, "%v", err)
	case errors.Is(err, ErrSessionRunning):
		return Errorf(wire.CodeInvalidRequest, "%v", err)
	case errors.Is(err, ErrNotPaused):
		return Errorf(wire.CodeInvalidParams, "%v", err)
	case errors.Is(err, ErrCancelled):
		return Errorf(wire.CodeCancelled, "%v", err)
	}
	return Errorf(wire.CodeInternal, "%v", err)
}
