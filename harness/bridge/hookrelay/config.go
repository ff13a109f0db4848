package hookrelay

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Relay says how an agent's hook system runs the relay command.
type Relay struct {
	// Exe is the conform binary (an absolute path: hooks run through the
	// agent's shell, in the agent's working folder).
	Exe string
	// URL is the agent kernel's hook endpoint.
	URL string
	// Timeout is the relay's own; the agent's hook timeout is set 5 s above
	// it so the relay's failure policy, not the agent's kill, decides.
	Timeout time.Duration
}

// Command is the shell command line for one agent event.
func (r Relay) Command(agent, event string) string {
	args := []string{r.Exe, "hook-relay", "--url", r.URL, "--agent", agent, "--event", event}
	if r.Timeout > 0 {
		args = append(args, "--timeout", r.Timeout.String())
	}
	for i, a := range args {
		args[i] = shellQuote(a)
	}
	return strings.Join(args, " ")
}

// shellQuote quotes a word for sh: agents run hook commands with sh -c.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (r Relay) check(agent string, events []string) error {
	if r.Exe == "" || r.URL == "" {
		return fmt.Errorf("hookrelay: the relay needs the conform binary and the kernel URL (got %q, %q)", r.Exe, r.URL)
	}
	for _, e := range events {
		if _, ok := PointOf(agent, e); !ok {
			return fmt.Errorf("hookrelay: %s has no hook event %q that the relay maps", agent, e)
		}
	}
	return nil
}

func (r Relay) agentTimeout() time.Duration {
	t := r.Timeout
	if t <= 0 {
		t = DefaultTimeout
	}
	return t + 5*time.Second
}

// toolEvents are the events whose matcher is a tool name; "*" matches all.
var toolEvents = map[string]bool{"PreToolUse": true, "PostToolUse": true, "PermissionRequest": true, "BeforeTool": true, "AfterTool": true}

// claudeHooks is the hooks object of Claude Code settings, which Codex's
// hooks.json shares: event -> [{matcher, hooks: [{type, command, timeout
// (seconds)}]}] (Claude Code hooks reference, "Configuration").
func (r Relay) claudeHooks(agent string, events []string) (map[string]any, error) {
	if err := r.check(agent, events); err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, e := range events {
		group := map[string]any{"hooks": []any{map[string]any{
			"type": "command", "command": r.Command(agent, e), "timeout": int(r.agentTimeout() / time.Second)}}}
		if toolEvents[e] {
			group["matcher"] = "*"
		}
		out[e] = []any{group}
	}
	return out, nil
}

// ClaudeCodeHooks is the value of "hooks" in the settings file given to
// `claude --settings FILE`.
func ClaudeCodeHooks(r Relay, events []string) (map[string]any, error) {
	return r.claudeHooks(AgentClaudeCode, events)
}

// CodexHooksJSON is ~/.codex/hooks.json: Claude Code's format under a
// top-level "hooks" (Codex needs --dangerously-bypass-hook-trust headless,
// /work/shared/agents/README.md).
func CodexHooksJSON(r Relay, events []string) ([]byte, error) {
	h, err := r.claudeHooks(AgentCodex, events)
	if err != nil {
		return nil, err
	}
	return marshal(map[string]any{"hooks": h})
}

// GeminiHooks is the value of "hooks" in Gemini CLI's settings.json:
// event -> [{matcher, hooks: [{name, type, command, timeout (ms)}]}]
// (google-gemini/gemini-cli docs/hooks).
func GeminiHooks(r Relay, events []string) (map[string]any, error) {
	if err := r.check(AgentGemini, events); err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, e := range events {
		group := map[string]any{"hooks": []any{map[string]any{
			"name": "conform-relay", "type": "command", "command": r.Command(AgentGemini, e),
			"timeout": r.agentTimeout().Milliseconds()}}}
		if toolEvents[e] {
			group["matcher"] = "*"
		}
		out[e] = []any{group}
	}
	return out, nil
}

func marshal(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
