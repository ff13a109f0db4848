package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agentconform/conform/harness/bridge/hookrelay"
	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/spec/wire"
)

// Hooks: the agent's own hook system runs conform's relay command at the
// agent events that map exactly onto a spec point where the session has
// subscribers (hookrelay.Mappings). The agent runs one hook per event, so
// the bridge fans it out to that point's subscribers in declaration order
// with kernelkit's Session.Dispatch (modes, timeouts, hook_error events):
// that chain is the bridge's glue, declared by the reading bridge.hooks;
// what the agent does with the decision (a deny blocks the call) is the
// agent's own behaviour.

// hookPoints are the points the bridge relays: their payloads can be built
// from what an agent's hook event carries.
var hookPoints = map[string]bool{wire.PointPreToolCall: true, wire.PointPostToolCall: true, wire.PointSessionStart: true, wire.PointSessionEnd: true}

// hookEvents are the agent events to register for this session.
func (r *run) hookEvents() []string {
	agent := r.k.Profile.Hooks
	if agent == "" {
		return nil
	}
	want := map[string]bool{}
	for _, s := range r.p.Config.Hooks.Subscribers {
		want[s.Point] = true
	}
	var evs []string
	for _, m := range hookrelay.Mappings {
		if m.Agent == agent && m.Exact && hookPoints[m.Point] && want[m.Point] {
			evs = append(evs, m.AgentEvent)
		}
	}
	return evs
}

// relayedPoints are the points at which the bridge relays the agent's
// hooks, sorted; none without a hook system in the profile.
func relayedPoints(agent string) []string {
	if agent == "" {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, m := range hookrelay.Mappings {
		if m.Agent == agent && m.Exact && hookPoints[m.Point] && !seen[m.Point] {
			seen[m.Point] = true
			out = append(out, m.Point)
		}
	}
	sort.Strings(out)
	return out
}

// hookFormats are the agents whose hook configuration the bridge writes.
var hookFormats = []string{hookrelay.AgentClaudeCode, hookrelay.AgentCodex, hookrelay.AgentGemini, hookrelay.AgentQwen, hookrelay.AgentPi}

// writeHooks writes the agent's hook configuration: the {hooks_config}
// settings file (Claude Code), ~/.codex/hooks.json (Codex), the "hooks" of
// ~/.gemini/settings.json (Gemini CLI) or of ~/.qwen/settings.json (Qwen
// Code); pi's extension relays its own.
func (r *run) writeHooks(vars map[string]string) error {
	evs := r.hookEvents()
	rl := hookrelay.Relay{Exe: r.k.Conform, URL: r.auxURL + "/hooks", Timeout: 30 * time.Second}
	var path string
	var body []byte
	var err error
	switch r.k.Profile.Hooks {
	case "":
		return nil
	case hookrelay.AgentClaudeCode:
		h := map[string]any{}
		if len(evs) > 0 {
			if h, err = hookrelay.ClaudeCodeHooks(rl, hookrelay.Hooks(evs...)); err != nil {
				return err
			}
		}
		path = vars["{hooks_config}"]
		body, err = json.MarshalIndent(map[string]any{"hooks": h}, "", "  ")
	case hookrelay.AgentCodex:
		if len(evs) == 0 {
			return nil
		}
		path = filepath.Join(vars["{home}"], ".codex", "hooks.json")
		body, err = hookrelay.CodexHooksJSON(rl, hookrelay.Hooks(evs...))
	case hookrelay.AgentGemini, hookrelay.AgentQwen:
		if len(evs) == 0 {
			return nil
		}
		// Both read hooks from their user settings, which the profile's
		// files wrote: the bridge adds "hooks" to them.
		dir, hooks := ".gemini", hookrelay.GeminiHooks
		if r.k.Profile.Hooks == hookrelay.AgentQwen {
			dir, hooks = ".qwen", hookrelay.QwenHooks
		}
		path = filepath.Join(vars["{home}"], dir, "settings.json")
		body, err = mergeSettings(path, func(m map[string]any) error {
			h, err := hooks(rl, hookrelay.Hooks(evs...))
			m["hooks"] = h
			return err
		})
	case hookrelay.AgentPi:
		// The bridge's pi extension posts every hook event itself (a point
		// without subscribers is answered at once, dispatching nothing).
		return nil
	default:
		return fmt.Errorf("hooks %q: the bridge writes hook configurations for %s", r.k.Profile.Hooks, strings.Join(hookFormats, ", "))
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, body, 0o600)
}

// mergeSettings reads a JSON settings file (absent: empty), lets edit
// change it and returns the new content.
func mergeSettings(path string, edit func(map[string]any) error) ([]byte, error) {
	m := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	if err := edit(m); err != nil {
		return nil, err
	}
	return json.MarshalIndent(m, "", "  ")
}

// dispatch answers one relayed hook event.
func (r *run) dispatch(ctx context.Context, ev hookrelay.Event) (hookrelay.Decision, error) {
	if !hookPoints[ev.Point] || !ev.Exact {
		r.observe("hook event %s of %s not relayed (no exact spec point)", ev.AgentEvent, ev.Agent)
		return hookrelay.Decision{Outcome: hookrelay.Allow}, nil
	}
	p := wire.HookPayload{Variant: ev.Point}
	switch ev.Point {
	case wire.PointSessionStart:
		p.SessionID, p.Prompt = r.p.SessionID, r.p.Prompt
	case wire.PointSessionEnd:
		p.SessionID, p.Status = r.p.SessionID, wire.StatusCompleted
	default:
		name, ok := hookrelay.StripMCP(ev.ToolName, r.k.Profile.serverName())
		if !ok {
			name, ok = r.k.Profile.sessionTool(ev.ToolName, r.p.Config.Tools)
		}
		if ev.MCPServer != "" {
			// Gemini CLI names an MCP tool in mcp_context.
			name, ok = ev.MCPTool, ev.MCPServer == r.k.Profile.serverName()
		}
		if !ok {
			r.observe("hook %s for the agent's own tool %q not relayed", ev.AgentEvent, ev.ToolName)
			return hookrelay.Decision{Outcome: hookrelay.Allow}, nil
		}
		call := &wire.ToolCall{ID: ev.ToolUseID, Name: name, Input: ev.ToolInput}
		for _, t := range r.p.Config.Tools {
			if t.Name == name {
				call.Provider, call.Kind = t.Provider, t.Kind
			}
		}
		if len(call.Input) == 0 {
			call.Input = json.RawMessage(`{}`)
		}
		p.Call = call
		if ev.Point == wire.PointPostToolCall {
			var text string
			if json.Unmarshal(ev.ToolOutput, &text) != nil {
				text = string(ev.ToolOutput)
			}
			p.Result = &wire.ToolResult{Content: text}
		}
	}
	r.mu.Lock()
	s := r.sess
	turn := r.callContext().TurnID
	r.mu.Unlock()
	if ev.Point == wire.PointSessionStart || ev.Point == wire.PointSessionEnd {
		turn = ""
	}
	return decisionOf(s.Dispatch(ctx, turn, p))
}

// decisionOf is what the relay tells the agent of the chain's outcome.
func decisionOf(out kernelkit.Outcome, err error) (hookrelay.Decision, error) {
	if err != nil {
		if abort := (*kernelkit.HookAbort)(nil); errors.As(err, &abort) {
			// The chain is the bridge's (one relay entry per point): its
			// abort ends the turn, as the kernel's own would.
			return hookrelay.Decision{Outcome: hookrelay.Abort, Reason: err.Error()}, nil
		}
		return hookrelay.Decision{}, err
	}
	if out.Denied {
		return hookrelay.Decision{Outcome: hookrelay.Deny, Reason: fmt.Sprintf("denied by %s: %s", out.By, out.Reason)}, nil
	}
	return hookrelay.Decision{Outcome: hookrelay.Allow}, nil
}
