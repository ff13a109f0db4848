// Package testagent is the project's own coding agent for checking the
// bridge without Node: a real little loop (ask the model, run its tool
// calls through MCP, repeat) whose model client is the provider's official
// Go SDK for the dialect chosen (anthropic-sdk-go, openai-go chat
// completions and responses, google.golang.org/genai) and whose MCP client
// is the official go-sdk. `conform test-agent` runs it; the profiles under
// testdata/profiles point the agent kernel at it.
//
// It also misbehaves on request (--misbehave), so the bridge's answers to
// a bad agent are tested: a request its dialect does not allow, half a
// request body, a hang, an early exit, a helper process left running, a
// flood of output, no MCP session.
//
// Its final stdout line is {"type":"result","status":...,"text":...,
// "input_tokens":N,"output_tokens":N}, the totals of the usage the model
// reported, which the profile maps onto the session's result.
package testagent
