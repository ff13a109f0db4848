// Package server serves a refkernel.Kernel over conform.wire/v1 (PROTOCOL.md
// §2 to §6) through kernelkit, the public adapter kit: the reference kernel
// reaches the harness through exactly the code an outside Go kernel uses,
// so every requirement the catalog checks on it is also a check of the kit.
// The same code runs in process over io.Pipe and as `conform kernel` on
// stdin and stdout.
//
// What is left here is the translation of the kernel's errors into the
// protocol's codes: a refused config is CodeConfigRejected before anything
// is dispatched (HD-16, TA-25, ER-05); an unknown session
// CodeUnknownSession; a session/continue of a session that is not paused,
// a spawn whose call is not the parent's in-flight spawn-capable tool
// call, an unknown profile or no depth left, and a refused memory write
// CodeInvalidParams; a queued spawn whose parent went away CodeCancelled.
// The kit does the rest: initialize, the session lifecycle (TA-18: a
// cancelled or shut-down session still ends properly), shutdown, and the
// schema validation of every incoming message.
package server
