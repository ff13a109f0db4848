// Package testagent is the project's own coding agent for checking the
// bridge without Node: a real little loop (ask the model, run its tool
// calls through MCP, repeat) whose model client is the provider's official
// Go SDK for the dialect chosen (anthropic-sdk-go, openai-go chat
// completions and responses, google.golang.org/genai) and whose MCP client
// is the official go-sdk. `conform test-agent` runs it; the profiles under
// testdata/profiles point the agent kernel at it.
//
// Like the agents it stands for, it has a hook system and telemetry of its
// own, so `make test` checks the bridge's relay and receiver end to end:
// --settings runs Claude Code's settings hooks (SessionStart, PreToolUse,
// PostToolUse, SessionEnd; command hooks run with sh -c, the hooks of a
// group in parallel; a deny keeps a call from running, "continue": false
// ends the run as hook_stopped), which the bridge writes as for Claude Code;
// --otlp-url exports its session, turn, model-request and tool spans with
// the OTel SDK's OTLP/HTTP exporter, named as its own (test_agent.*), which
// the profiles' span_roles map onto conform roles (TA-17, HD-03, HD-09,
// HD-11 at pre-tool-call).
//
// It also misbehaves on request (--misbehave), so the bridge's answers to
// a bad agent are tested: a request its dialect does not allow, half a
// request body, a hang, an early exit, a helper process left running, a
// flood of output, no MCP session; and hooks never run (ignore-hooks) or
// a hook's stop not heeded (ignore-stop), which the relay's scenarios
// must catch.
//
// Its final stdout line is {"type":"result","status":...,"text":...,
// "input_tokens":N,"output_tokens":N}, the totals of the usage the model
// reported, which the profile maps onto the session's result.
package testagent
