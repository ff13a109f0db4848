// Package mcpserve offers a session's tools to a coding agent over MCP, the
// protocol the agent already speaks for extra tools (issue 27, the bridge).
//
// The agent kernel (harness/bridge) starts one Server per session/run with
// the session's []wire.ToolSchema; every MCP tools/call the agent makes goes
// through the Invoker, which is the agent kernel's wrapper around
// kernelkit.Host.Invoke, so the harness records it as the tool/invoke a wire
// kernel would have sent. This package records nothing itself and never
// answers a call the Invoker did not answer.
//
// Requirements served (through the recorded tool/invoke, never here): every
// row judged on tool calls — TA-01 (results follow calls), TA-12..TA-16
// (concurrency: calls are handled concurrently, never serialised here),
// ER-08..ER-11 (tool errors reach the agent as isError results with their
// category), PA-* (a denied call never reaches the Invoker because the agent
// never calls it).
//
// What the agent does wrong on this protocol is answered as an MCP error the
// agent can read, never as a tool result: an unknown tool, arguments that are
// not a JSON object. Opening no session at all is visible to the agent kernel
// through Sessions() (it reports the agent's error; nothing here can).
//
// config.go writes each agent's MCP configuration pointing at the server:
// Claude Code --mcp-config, Codex config.toml, Gemini CLI settings,
// opencode.json.
package mcpserve
