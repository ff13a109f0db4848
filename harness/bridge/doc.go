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
// did (a request its dialect does not allow, half a request, half a result
// line, an exit before answering, no MCP session, a flood of output, a
// helper or a daemon left running, a hang past the profile's limit scaled
// by --timeout-multiplier): the harness reports it as error with that
// text. Every process the agent started is gone afterwards (the kernel is
// a child subreaper and sweeps what it adopts), and every session has
// scratch folders of its own, removed when it ends.
//
// Observations (observations.go): what the bridge sees of the agent that is
// no wire traffic of the agent's — a call that is not a turn (TA-01), a
// name looked up beyond loopback, a tool of its own, a bound it cannot be
// told — goes beside the wire, to a file conform agent reads into each
// scenario's observations, never as invented events.
//
// Isolation: the agent kernel runs inside a network namespace of its own
// (`unshare --net --mount`), brings loopback up, and proves isolation by
// listing the namespace's interfaces (only lo, Isolation). conform
// agent-kernel refuses to serve otherwise unless started with
// --no-isolation. In its own mount namespace it points /etc/resolv.conf at
// a stub resolver on 127.0.0.53 (DNSStub), which answers NXDOMAIN and
// reports every name the agent looks up.
//
// Requirements: the bridge judges nothing; it carries every row of the
// catalog a coding agent can show (TA-*, HD-*, ER-* through the recorded
// model/stream, tool/invoke and hook/dispatch calls).
package bridge
