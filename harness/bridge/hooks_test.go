package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentconform/conform/harness/bridge/hookrelay"
	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/spec/wire"
)

// hookRun is a session with subscribers at pre-tool-call and session-start
// for an agent of the given hook format, its files written under dir.
func hookRun(t *testing.T, format string) (*run, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	r := &run{k: &Kernel{Profile: &Profile{Name: format, Hooks: format}, Conform: "/opt/conform"}, dir: dir, auxURL: "http://127.0.0.1:1"}
	r.p.Config.Hooks.Subscribers = []wire.Subscriber{{ID: "guard", Point: wire.PointPreToolCall, Mode: "veto"}, {ID: "hello", Point: wire.PointSessionStart, Mode: "observe"}}
	vars := map[string]string{"{home}": filepath.Join(dir, "home"), "{hooks_config}": filepath.Join(dir, "hooks.json")}
	return r, vars
}

// Gemini CLI's and Qwen Code's hooks go into the settings the profile
// wrote, beside what was there: the relay runs at the events of the
// session's two points (a matcher group for every tool at the tool
// event), with the agent's own timeout unit (Gemini CLI ms, Qwen Code s).
func TestSettingsHooksJoinTheProfilesSettings(t *testing.T) {
	for _, c := range []struct {
		format, dir, toolEvent, startEvent string
		timeout                            float64
	}{
		{"gemini-cli", ".gemini", "BeforeTool", "SessionStart", 35000},
		{"qwen-code", ".qwen", "PreToolUse", "SessionStart", 35},
	} {
		r, vars := hookRun(t, c.format)
		settings := filepath.Join(vars["{home}"], c.dir, "settings.json")
		if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(settings, []byte(`{"mcpServers": {"conform": {"httpUrl": "x", "trust": true}}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := r.writeHooks(vars); err != nil {
			t.Fatal(err)
		}
		var got struct {
			MCPServers map[string]any `json:"mcpServers"`
			Hooks      map[string][]struct {
				Matcher string `json:"matcher"`
				Hooks   []struct {
					Type, Command string
					Timeout       float64
				} `json:"hooks"`
			} `json:"hooks"`
		}
		b, _ := os.ReadFile(settings)
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if got.MCPServers["conform"] == nil {
			t.Errorf("%s: the profile's settings were lost: %s", c.format, b)
		}
		for _, ev := range []string{c.toolEvent, c.startEvent} {
			g := got.Hooks[ev]
			if len(g) != 1 || len(g[0].Hooks) != 1 || !strings.Contains(g[0].Hooks[0].Command, "--agent "+c.format+" --event "+ev) || g[0].Hooks[0].Timeout != c.timeout {
				t.Errorf("%s: hooks[%s] = %+v, want one relay command with a timeout of %v", c.format, ev, g, c.timeout)
			}
		}
		if len(got.Hooks) != 2 || got.Hooks[c.toolEvent][0].Matcher != "*" {
			t.Errorf("%s: want %s (matcher *) and %s only: %s", c.format, c.toolEvent, c.startEvent, b)
		}
	}
}

// Codex reads ~/.codex/hooks.json, Claude Code's format under "hooks".
func TestCodexHooksFile(t *testing.T) {
	r, vars := hookRun(t, "codex")
	if err := r.writeHooks(vars); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(vars["{home}"], ".codex", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"PreToolUse"`, `"SessionStart"`, "--agent codex --event PreToolUse"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("hooks.json lacks %s:\n%s", want, b)
		}
	}
}

// The initialize answer says at which points the harness can see the
// agent's hook dispatches: the relayed points of its hook system, or none.
func TestInfoDeclaresTheHookPointsSeen(t *testing.T) {
	for hooks, want := range map[string]string{
		"":            "none",
		"claude-code": strings.Join(relayedPoints("claude-code"), ", "),
	} {
		k := &Kernel{Profile: &Profile{Name: "x", Dialect: "anthropic", Hooks: hooks}}
		if got := k.Info().Readings["bridge.hook_points"]; got != want || got == "" {
			t.Errorf("hooks %q: bridge.hook_points = %q, want %q", hooks, got, want)
		}
	}
	if pts := relayedPoints("claude-code"); !slices.Contains(pts, wire.PointSessionEnd) || slices.Contains(pts, wire.PointPreModelCall) {
		t.Errorf("claude-code's relayed points %v: want session-end among them, and no pre-model-call (no agent event carries a model request)", pts)
	}
}

// The bridge fans a point out to its chain; the agent is told what the
// chain decided. A transform's failure aborts the chain and the turn
// (§7.2), so the agent is told to stop, not that a hook failed (which all
// three agents take as "go on"): Gemini CLI went on after such a failure
// at BeforeTool (HD-03, HD-09 in reports/agents/gemini-cli.json).
func TestChainOutcomeToldToTheAgent(t *testing.T) {
	abort := &kernelkit.HookAbort{Point: wire.PointPreToolCall, Subscriber: "T", Category: "TRANSFORM_FAILED", Err: errors.New("boom")}
	cases := []struct {
		name string
		out  kernelkit.Outcome
		err  error
		want hookrelay.Decision
	}{
		{"allowed", kernelkit.Outcome{}, nil, hookrelay.Decision{Outcome: hookrelay.Allow}},
		{"vetoed", kernelkit.Outcome{Denied: true, By: "V", Reason: "no"}, nil, hookrelay.Decision{Outcome: hookrelay.Deny, Reason: "denied by V: no"}},
		{"transform failed", kernelkit.Outcome{}, abort, hookrelay.Decision{Outcome: hookrelay.Abort, Reason: abort.Error()}},
		{"wrapped abort", kernelkit.Outcome{}, fmt.Errorf("dispatch: %w", abort), hookrelay.Decision{Outcome: hookrelay.Abort, Reason: "dispatch: " + abort.Error()}},
	}
	for _, c := range cases {
		got, err := decisionOf(c.out, c.err)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
	if _, err := decisionOf(kernelkit.Outcome{}, context.Canceled); !errors.Is(err, context.Canceled) {
		t.Errorf("a dispatch that could not be had must stay an error (the relay's failure policy), got %v", err)
	}
}
