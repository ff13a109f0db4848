// Package adapter starts the kernel under test and gives the harness its two
// pipes: a subprocess speaking on stdin/stdout (any language), or a Go
// kernel served in-process over io.Pipe. Both paths end in the same
// jsonrpc.Conn, so the reference kernel is checked exactly the way a
// third-party kernel is.
//
// A subprocess runs in its own process group, and Close kills the whole group
// so that no process outlives a run, whatever the kernel spawned.
package adapter
