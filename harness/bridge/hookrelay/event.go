package hookrelay

import (
	"encoding/json"
	"strings"

	"github.com/agentconform/conform/spec/wire"
)

// Agents the relay speaks for.
const (
	AgentClaudeCode = "claude-code"
	AgentCodex      = "codex"
	AgentGemini     = "gemini-cli"
	// AgentQwen's hooks are Claude Code's, in its settings.json (events,
	// matcher groups, command hooks, timeouts in seconds, the same output
	// fields: @qwen-code/qwen-code hooks/hookRunner.ts normalizeOutput).
	AgentQwen = "qwen-code"
	// AgentPi's hooks are its extension events, which the bridge's own pi
	// extension (harness/bridge/extensions/pi.ts) posts to the relay's
	// endpoint directly, in the shape the others' stdin has, and answers
	// from the Decision itself: no relay command, no format.
	AgentPi = "pi"
)

// Event is one hook event of the agent, as the kernel's Dispatcher sees it.
type Event struct {
	Agent      string `json:"agent"`
	AgentEvent string `json:"agent_event"`
	// Subscriber is the conform subscriber this hook entry stands for, when
	// the agent's config has one relay entry per subscriber (Hook); empty
	// when one entry stands for the whole chain of the point.
	Subscriber string `json:"subscriber,omitempty"`
	// Point is the spec hook point the agent event maps to ("" when none,
	// see Mappings); Exact says whether it fires where the spec's does.
	Point string `json:"point,omitempty"`
	Exact bool   `json:"exact,omitempty"`
	// SessionID is the agent's own session id (not conform's).
	SessionID string `json:"session_id,omitempty"`
	// ToolUseID is the agent's id of the call (Claude Code, Codex).
	ToolUseID string `json:"tool_use_id,omitempty"`
	ToolName  string `json:"tool_name,omitempty"`
	// MCPServer and MCPTool name an MCP tool as Gemini CLI's mcp_context
	// does; for the others see StripMCP.
	MCPServer  string          `json:"mcp_server,omitempty"`
	MCPTool    string          `json:"mcp_tool,omitempty"`
	ToolInput  json.RawMessage `json:"tool_input,omitempty"`
	ToolOutput json.RawMessage `json:"tool_output,omitempty"`
	Prompt     string          `json:"prompt,omitempty"`
	// Raw is the agent's stdin JSON, untouched.
	Raw json.RawMessage `json:"raw"`
}

// Decision outcomes.
const (
	Allow   = "allow"
	Deny    = "deny"
	Changed = "changed"
	// Failed: the subscriber failed; the agent is told its hook failed.
	Failed = "failed"
	// Abort: the chain the kernel dispatched for the point aborted the
	// turn (a failing transform, PROTOCOL.md §7.2); the agent is told to
	// stop, which its hook output can say (continue false).
	Abort = "abort"
)

// Decision is the kernel's answer to one Event.
type Decision struct {
	// Outcome is Allow (also when empty), Deny, Changed, Failed or Abort.
	Outcome string `json:"outcome,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Payload is, for Changed, the new tool input (pre-tool-call) or the
	// new tool output (post-tool-call).
	Payload json.RawMessage `json:"payload,omitempty"`
	// Context is text the hook adds to the agent's context where the agent
	// lets a hook add any (additionalContext).
	Context string `json:"context,omitempty"`
}

// Mapping says which spec hook point an agent's hook event is.
type Mapping struct {
	Agent, AgentEvent, Point string
	// Exact: the event fires where and as often as the spec point does.
	Exact bool
	// Gates: the agent acts on a deny at this event (it blocks something);
	// the relay fails closed here.
	Gates bool
	Note  string
}

// Mappings is the table agent event -> spec hook point. Claude Code's
// events are from its hooks reference (docs.claude.com, "Hooks reference");
// Codex's are Claude Code's (openai/codex codex-rs/hooks/src/events:
// SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest,
// PostToolUse, Stop); Gemini CLI's from google-gemini/gemini-cli
// docs/hooks/reference.md.
var Mappings = func() []Mapping {
	claudeLike := func(agent string) []Mapping {
		return []Mapping{
			{agent, "SessionStart", wire.PointSessionStart, true, false, ""},
			{agent, "UserPromptSubmit", wire.PointPreModelCall, false, true, "fires once per user prompt, before the first model call only; it cannot change the messages, only add context"},
			{agent, "PreToolUse", wire.PointPreToolCall, true, true, ""},
			{agent, "PermissionRequest", wire.PointPlanReady, false, true, "fires only for a call the agent would ask the user about"},
			{agent, "PostToolUse", wire.PointPostToolCall, true, false, ""},
			{agent, "Stop", "", false, false, "the agent is about to end its answer; no spec point (a deny makes the agent go on)"},
			{agent, "SessionEnd", wire.PointSessionEnd, true, false, ""},
		}
	}
	out := append(claudeLike(AgentClaudeCode), claudeLike(AgentCodex)...)
	out = append(out, claudeLike(AgentQwen)...)
	return append(out,
		Mapping{AgentGemini, "SessionStart", wire.PointSessionStart, true, false, ""},
		Mapping{AgentGemini, "BeforeAgent", wire.PointPreModelCall, false, true, "fires once per user prompt, before planning; it can add context or discard the prompt"},
		Mapping{AgentGemini, "BeforeModel", wire.PointPreModelCall, true, true, ""},
		Mapping{AgentGemini, "AfterModel", wire.PointPostModelResponse, false, false, "fires for every streamed chunk, not once per response"},
		Mapping{AgentGemini, "BeforeTool", wire.PointPreToolCall, true, true, ""},
		Mapping{AgentGemini, "AfterTool", wire.PointPostToolCall, true, false, ""},
		Mapping{AgentGemini, "AfterAgent", "", false, false, "end of the agent's turn; no spec point"},
		Mapping{AgentGemini, "SessionEnd", wire.PointSessionEnd, false, false, "best effort: the CLI does not wait for it"},
		// pi: docs/extensions.md of @mariozechner/pi-coding-agent; print
		// mode awaits session_shutdown when it disposes of its runtime.
		Mapping{AgentPi, "session_start", wire.PointSessionStart, true, false, ""},
		Mapping{AgentPi, "tool_call", wire.PointPreToolCall, true, true, ""},
		Mapping{AgentPi, "tool_result", wire.PointPostToolCall, true, false, ""},
		Mapping{AgentPi, "session_shutdown", wire.PointSessionEnd, true, false, ""},
	)
}()

// PointOf looks an agent event up in Mappings.
func PointOf(agent, event string) (Mapping, bool) {
	for _, m := range Mappings {
		if m.Agent == agent && m.AgentEvent == event {
			return m, true
		}
	}
	return Mapping{Agent: agent, AgentEvent: event}, false
}

// KnownAgent says whether the relay speaks for the agent.
func KnownAgent(agent string) bool {
	return agent == AgentClaudeCode || agent == AgentCodex || agent == AgentGemini || agent == AgentPi || agent == AgentQwen
}

// StripMCP returns the MCP tool name inside an agent's tool name for a tool
// of the named MCP server (Claude Code, Codex and Gemini CLI all name them
// mcp__SERVER__TOOL in hooks).
func StripMCP(toolName, server string) (string, bool) {
	return strings.CutPrefix(toolName, "mcp__"+server+"__")
}

// parseEvent reads the fields the three agents share from the stdin JSON.
func parseEvent(agent, agentEvent, subscriber string, raw json.RawMessage) (Event, error) {
	var in struct {
		SessionID  string `json:"session_id"`
		ToolUseID  string `json:"tool_use_id"`
		ToolName   string `json:"tool_name"`
		MCPContext struct {
			ServerName string `json:"server_name"`
			ToolName   string `json:"tool_name"`
		} `json:"mcp_context"`
		ToolInput    json.RawMessage `json:"tool_input"`
		ToolResponse json.RawMessage `json:"tool_response"`
		Prompt       string          `json:"prompt"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		return Event{}, err
	}
	m, _ := PointOf(agent, agentEvent)
	return Event{
		Agent: agent, AgentEvent: agentEvent, Subscriber: subscriber, Point: m.Point, Exact: m.Exact,
		SessionID: in.SessionID, ToolUseID: in.ToolUseID, ToolName: in.ToolName,
		MCPServer: in.MCPContext.ServerName, MCPTool: in.MCPContext.ToolName, ToolInput: in.ToolInput,
		ToolOutput: in.ToolResponse, Prompt: in.Prompt, Raw: raw,
	}, nil
}
