// Package server serves a refkernel.Kernel over conform.wire/v1 (PROTOCOL.md
// §2 to §6): JSON-RPC 2.0, one object per line, on any reader and writer, so
// the same code runs in process over io.Pipe and as `conform kernel` on
// stdin and stdout. Every requirement the kernel serves reaches the harness
// through it; the ones it handles itself are the session lifecycle (TA-18:
// a cancelled or shut-down session still ends properly) and config refusal
// before anything is dispatched (HD-16, TA-25, ER-05).
//
// It answers initialize (conform.wire/v1 or CodeVersionMismatch; the
// answer carries the kernel's capabilities and readings), session/run (the
// session runs against a Host whose every method is a request back to the
// harness on the same connection), session/cancel, and shutdown, which
// cancels the running sessions, waits for them to end, answers, and makes
// Serve return. session/continue resumes a session a soft limit paused
// (CodeUnknownSession for a session that is not running, CodeInvalidParams
// for one that is not paused). session/spawn runs a child session while
// the spawning tool/invoke is in flight and answers with its result once it
// has ended (CodeUnknownSession for an unknown parent, CodeInvalidParams for
// a call that is not the parent's in-flight spawn-capable tool call, an
// unknown profile or no depth left, CodeCancelled for a queued spawn whose
// parent went away). A refused config answers CodeConfigRejected. Every incoming
// message and every result the harness returns is checked against the
// protocol's JSON Schemas with wire.Validate.
package server
