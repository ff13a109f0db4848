package hookrelay

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Output is what the relay prints and its exit code.
type Output struct {
	Stdout []byte
	Stderr string
	Code   int
}

// Exit codes every agent here shares: 0 success (stdout JSON read), 2 a
// blocking error (stderr is the reason), anything else a non-blocking
// error (the hook failed; the agent goes on). Claude Code: hooks reference,
// "Exit code output"; Codex: codex-rs/hooks/src/events/pre_tool_use.rs
// (exit 2 needs a non-empty stderr); Gemini CLI: docs/hooks/reference.md.
const (
	exitOK       = 0
	exitFailed   = 1
	exitBlocking = 2
)

const defaultDenyReason = "denied by a conform hook subscriber"

// Format renders a Decision for the agent's event.
func Format(agent, event string, d Decision) Output {
	switch d.Outcome {
	case Failed:
		return Output{Stderr: orDefault(d.Reason, "a conform hook subscriber failed"), Code: exitFailed}
	case Abort:
		return formatAbort(agent, event, d)
	}
	if agent == AgentGemini {
		return formatGemini(event, d)
	}
	return formatClaude(event, d)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func jsonOut(v any) Output {
	b, err := json.Marshal(v)
	if err != nil {
		return Output{Stderr: fmt.Sprintf("hook relay: cannot encode the decision: %v", err), Code: exitFailed}
	}
	return Output{Stdout: append(b, '\n'), Code: exitOK}
}

type obj = map[string]any

// formatClaude is Claude Code's format, which Codex's hooks.json shares
// (codex-rs/hooks/schema/generated/*.command.output.schema.json: the same
// hookSpecificOutput, permissionDecision, updatedInput, decision "block",
// updatedMCPToolOutput).
func formatClaude(event string, d Decision) Output {
	reason := orDefault(d.Reason, defaultDenyReason)
	hso := func(fields obj) Output {
		fields["hookEventName"] = event
		return jsonOut(obj{"hookSpecificOutput": fields})
	}
	withContext := func() Output {
		switch event {
		case "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse":
			if d.Context != "" {
				return hso(obj{"additionalContext": d.Context})
			}
		}
		// An allow says nothing: Claude Code's permissionDecision "allow"
		// would also skip the agent's own permission checks, which a
		// subscriber's ALLOW does not mean, and Codex treats an allow with
		// no updatedInput as nothing at all.
		return Output{Code: exitOK}
	}
	switch d.Outcome {
	case Deny:
		switch event {
		case "PreToolUse":
			return hso(obj{"permissionDecision": "deny", "permissionDecisionReason": reason})
		case "PermissionRequest":
			return hso(obj{"decision": obj{"behavior": "deny", "message": reason}})
		case "PostToolUse", "UserPromptSubmit", "Stop":
			return jsonOut(obj{"decision": "block", "reason": reason})
		case "SessionStart", "SessionEnd":
			return Output{Stderr: "hook relay: " + event + " cannot be denied; the agent goes on", Code: exitOK}
		default:
			return Output{Stderr: reason, Code: exitBlocking}
		}
	case Changed:
		switch event {
		case "PreToolUse":
			// updatedInput is applied with permissionDecision allow (Claude
			// Code hooks reference; codex pre_tool_use.rs tests).
			return hso(obj{"permissionDecision": "allow", "updatedInput": d.Payload})
		case "PermissionRequest":
			return hso(obj{"decision": obj{"behavior": "allow", "updatedInput": d.Payload}})
		case "PostToolUse":
			return hso(obj{"updatedMCPToolOutput": d.Payload})
		}
		out := withContext()
		out.Stderr = "hook relay: " + event + " cannot carry a changed payload; sent unchanged"
		return out
	}
	return withContext()
}

// formatGemini is Gemini CLI's format (docs/hooks/reference.md): decision
// "deny" with a reason, hookSpecificOutput.tool_input to rewrite a call's
// arguments, hookSpecificOutput.additionalContext.
func formatGemini(event string, d Decision) Output {
	reason := orDefault(d.Reason, defaultDenyReason)
	allow := func() Output {
		switch event {
		case "SessionStart", "BeforeAgent", "AfterTool":
			if d.Context != "" {
				return jsonOut(obj{"hookSpecificOutput": obj{"additionalContext": d.Context}})
			}
		}
		// An empty object, not "allow": stdout that is not JSON becomes a
		// systemMessage, and an explicit allow is more than no objection.
		return jsonOut(obj{})
	}
	switch d.Outcome {
	case Deny:
		switch event {
		case "BeforeTool", "AfterTool", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel":
			return jsonOut(obj{"decision": "deny", "reason": reason})
		case "SessionStart", "SessionEnd":
			out := jsonOut(obj{})
			out.Stderr = "hook relay: " + event + " cannot be denied; the agent goes on"
			return out
		default:
			return Output{Stderr: reason, Code: exitBlocking}
		}
	case Changed:
		switch event {
		case "BeforeTool":
			// Gemini merges tool_input over the model's arguments: a key the
			// subscriber removed survives (a reading the profile declares).
			return jsonOut(obj{"hookSpecificOutput": obj{"tool_input": d.Payload}})
		case "AfterTool":
			// A deny's reason replaces the tool result sent to the model:
			// the only way Gemini lets a hook change a result.
			return jsonOut(obj{"decision": "deny", "reason": payloadText(d.Payload)})
		}
		out := allow()
		out.Stderr = "hook relay: " + event + " cannot carry a changed payload; sent unchanged"
		return out
	}
	return allow()
}

// formatAbort tells the agent to stop: "continue": false with a
// stopReason, which Claude Code (hooks reference, "Common JSON fields"),
// Qwen Code (hookRunner.ts normalizeOutput), Codex
// (codex-rs/hooks/schema/generated/*.command.output.schema.json) and Gemini
// CLI (docs/hooks/reference.md; hook-utils.ts stops the agent) read. At an
// event that gates a call the call is denied too, so it cannot run before
// the agent stops. Codex's PreToolUse is the exception: it counts
// continue:false and a stopReason there as an invalid output, a failed hook
// that lets the call run (codex-rs/hooks/src/engine/output_parser.rs
// unsupported_pre_tool_use_universal), so it gets the deny alone. A failed
// hook's exit 1 would tell every agent the opposite: a non-blocking error,
// go on.
func formatAbort(agent, event string, d Decision) Output {
	reason := orDefault(d.Reason, "a conform hook chain aborted the turn")
	out := obj{"continue": false, "stopReason": reason}
	switch {
	case agent == AgentGemini && event == "BeforeTool":
		out["decision"], out["reason"] = "deny", reason
	case agent == AgentCodex && event == "PreToolUse":
		out = obj{"hookSpecificOutput": obj{"hookEventName": event, "permissionDecision": "deny", "permissionDecisionReason": reason}}
	case agent != AgentGemini && event == "PreToolUse":
		out["hookSpecificOutput"] = obj{"hookEventName": event, "permissionDecision": "deny", "permissionDecisionReason": reason}
	}
	return jsonOut(out)
}

// payloadText is a JSON string's text, any other JSON as written.
func payloadText(p json.RawMessage) string {
	var s string
	if json.Unmarshal(p, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(p))
}
