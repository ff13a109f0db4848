// Package kernelkit turns a Go agent loop into a conform kernel without
// writing any JSON-RPC: the author implements Kernel (Info and Run; Cancel,
// Continue, Spawn, Decide and WriteMemory are optional interfaces) and the
// kit speaks conform.wire/v1 (spec/PROTOCOL.md) for it.
//
// Serving. Main serves a Kernel on stdin and stdout, which is what
//
//	conform run --kernel "go run ./mykernel"
//
// starts; Serve does the same on any reader and writer; Launcher runs a
// fresh kernel per instance in this process, for conformtest.TestKernel
// (a kernel checked from its own go test) and runner.Options.Launcher. The
// kit answers initialize (version negotiation and Info), runs each
// session/run in its own goroutine, validates everything the harness sends
// against the protocol's schemas, answers session/cancel, session/continue,
// session/spawn, frontend/decide and memory/write as PROTOCOL.md says a
// kernel without the optional part answers them, cancels every session at
// shutdown and answers it last. CheckOutgoing validates what the kit sends
// too, for an author's own tests.
//
// Calling the harness. Run gets a *Host: one method per kernel → harness
// request (Assemble, Hook, Stream, Invoke, Preview, Permission,
// Interactive, Confirm) and per notification (Span, Cost, Meta, Event).
//
// Helpers. Session and Turn carry the protocol duties every kernel has, so
// that an adapter writes only its loop: the session rows and session hooks
// (Start, Finish), turns and context/assemble (Begin, NewTurn), a point's
// hook chain with the rules of §7.2 (Dispatch), pricing and cost/usage
// (Charge), a model call with its hooks (Turn.Model), a reply's tool calls
// in the order of §12 (Turn.RunTools), and the conversions of §7.4
// (ToolResultOf, OutputText, ResultBlock, Fold). A helper that implements
// a loop feature says so (Dispatch is a hook system with timeouts;
// RunTools runs every call and applies no policy). An adapter for a real
// framework uses a helper only where the framework has the feature itself
// and calls the Host from the framework's own hooks otherwise, so that
// conform's report is about the framework, not about the glue.
//
// Requirements. As the transport of the reference kernel (refkernel/server)
// the package serves every requirement of the catalog: each is checked
// through it. Its own answers serve TA-18 (a cancelled or shut-down session
// still ends properly) and PA-16 (frontend/decide with nothing pending);
// the helpers serve TA-01 (the step order of a turn, with the toy loop of
// the package example), HD-01..HD-06, HD-09, HD-10, HD-11 and HD-14
// (Dispatch), TA-06 and TA-24 (Charge), ER-04 and ER-09 (ToolResultOf), ER-12
// (Turn.Invoke and CheckOutput: an output its output_schema refuses is an
// error result), and
// TA-31 (one turn_id per turn, Begin).
package kernelkit
