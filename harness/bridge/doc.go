// Package bridge is the agent kernel: a kernelkit.Kernel that checks a
// coding agent (a program, not a library) by serving, on loopback, the
// protocols the agent already speaks, and translating everything it sees
// into the Host calls a wire kernel makes, so the harness records the same
// log and no step definition knows the difference (issue 27).
//
// For every session/run the kernel makes a scratch HOME and working folder,
// starts the model dialect server (package dialect; every request is a
// model/stream), the MCP server with the session's tools (package mcpserve;
// every tools/call is a tool/invoke), writes the agent's configuration from
// its launch Profile, runs the agent's headless command, maps the agent's
// exit and final event to the RunSessionResult, and ends the agent's whole
// process tree. It never invents what the agent did not do: no cost, usage,
// meta rows, spans or events of its own. What the agent cannot be told is
// the profile's to declare (capabilities left out, readings), so that a row
// becomes skipped instead of a false failure.
//
// Misbehaviour ends the session in a JSON-RPC error naming what the agent
// did (a request its dialect does not allow, half a stream, an exit before
// answering, a helper process left running, a hang past the profile's
// limit): the harness reports it as error with that text.
//
// Isolation: the agent kernel runs inside a network namespace of its own
// (`unshare --net`), brings loopback up, and proves isolation by listing the
// namespace's interfaces (only lo, Isolation). conform agent-kernel refuses
// to serve otherwise unless started with --no-isolation.
//
// Requirements: the bridge judges nothing; it carries every row of the
// catalog a coding agent can show (TA-*, HD-*, ER-* through the recorded
// model/stream, tool/invoke and hook/dispatch calls).
package bridge
