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

// Hook is one relay entry in an agent's hook config. With a Subscriber,
// the entry stands for that one conform subscriber, so the agent's own hook
// system decides the order (and the overlap) of a point's subscribers, and
// the dispatch rows (HD-01, HD-06, HD-07) judge the agent; without one, the
// entry stands for the point's whole chain, dispatched by the kernel.
type Hook struct {
	Event      string
	Subscriber string
}

// Hooks is one chain-wide entry per event.
func Hooks(events ...string) []Hook {
	out := make([]Hook, len(events))
	for i, e := range events {
		out[i] = Hook{Event: e}
	}
	return out
}

// Command is the shell command line for one hook entry.
func (r Relay) Command(agent string, h Hook) string {
	args := []string{r.Exe, "hook-relay", "--url", r.URL, "--agent", agent, "--event", h.Event}
	if h.Subscriber != "" {
		args = append(args, "--subscriber", h.Subscriber)
	}
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

func (r Relay) check(agent string, hooks []Hook) error {
	if r.Exe == "" || r.URL == "" {
		return fmt.Errorf("hookrelay: the relay needs the conform binary and the kernel URL (got %q, %q)", r.Exe, r.URL)
	}
	for _, h := range hooks {
		if _, ok := PointOf(agent, h.Event); !ok {
			return fmt.Errorf("hookrelay: %s has no hook event %q that the relay maps", agent, h.Event)
		}
	}
	return nil
}

// grouped builds event -> one matcher group whose hooks are the entries of
// that event in the order given (Claude Code and Codex run the hooks of a
// group in parallel; that is the agent's behaviour, and what is judged).
func (r Relay) grouped(agent string, hooks []Hook, entry func(Hook) map[string]any) (map[string]any, error) {
	if err := r.check(agent, hooks); err != nil {
		return nil, err
	}
	groups := map[string]map[string]any{}
	for _, h := range hooks {
		g := groups[h.Event]
		if g == nil {
			g = map[string]any{"hooks": []any{}}
			if toolEvents[h.Event] {
				g["matcher"] = "*"
			}
			groups[h.Event] = g
		}
		g["hooks"] = append(g["hooks"].([]any), entry(h))
	}
	out := map[string]any{}
	for e, g := range groups {
		out[e] = []any{g}
	}
	return out, nil
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
func (r Relay) claudeHooks(agent string, hooks []Hook) (map[string]any, error) {
	return r.grouped(agent, hooks, func(h Hook) map[string]any {
		return map[string]any{"type": "command", "command": r.Command(agent, h), "timeout": int(r.agentTimeout() / time.Second)}
	})
}

// ClaudeCodeHooks is the value of "hooks" in the settings file given to
// `claude --settings FILE`.
func ClaudeCodeHooks(r Relay, hooks []Hook) (map[string]any, error) {
	return r.claudeHooks(AgentClaudeCode, hooks)
}

// CodexHooksJSON is ~/.codex/hooks.json: Claude Code's format under a
// top-level "hooks" (Codex needs --dangerously-bypass-hook-trust headless,
// /work/shared/agents/README.md).
func CodexHooksJSON(r Relay, hooks []Hook) ([]byte, error) {
	h, err := r.claudeHooks(AgentCodex, hooks)
	if err != nil {
		return nil, err
	}
	return marshal(map[string]any{"hooks": h})
}

// QwenHooks is the value of "hooks" in Qwen Code's settings.json: Claude
// Code's format, which Qwen Code reads (hooks/hookRegistry.ts
// processHooksConfiguration; timeouts in seconds).
func QwenHooks(r Relay, hooks []Hook) (map[string]any, error) {
	return r.claudeHooks(AgentQwen, hooks)
}

// GeminiHooks is the value of "hooks" in Gemini CLI's settings.json:
// event -> [{matcher, hooks: [{name, type, command, timeout (ms)}]}]
// (google-gemini/gemini-cli docs/hooks). Gemini's docs also ask, on some
// release channels, for hooks to be switched on elsewhere in the settings
// (hooksConfig.enabled); that is the profile's to write.
func GeminiHooks(r Relay, hooks []Hook) (map[string]any, error) {
	return r.grouped(AgentGemini, hooks, func(h Hook) map[string]any {
		name := "conform-relay"
		if h.Subscriber != "" {
			name += "-" + h.Subscriber
		}
		return map[string]any{"name": name, "type": "command", "command": r.Command(AgentGemini, h),
			"timeout": r.agentTimeout().Milliseconds()}
	})
}

func marshal(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
