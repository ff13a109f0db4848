package testagent

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// settings writes a Claude Code settings file with one group of hooks at
// PreToolUse matching tools named mcp__*, and returns its path.
func settings(t *testing.T, cmds ...hookCmd) string {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []hookGroup{{Matcher: "mcp__*", Hooks: cmds}}}})
	p := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func cmd(sh string) hookCmd { return hookCmd{Type: "command", Command: sh, Timeout: 5} }

// The test agent reads what the relay answers as Claude Code does.
func TestHookOutputsAsClaudeCodeReadsThem(t *testing.T) {
	cases := []struct {
		name string
		cmds []hookCmd
		want verdict
	}{
		{"silent allow", []hookCmd{cmd("cat >/dev/null")}, verdict{}},
		{"deny", []hookCmd{cmd(`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}'`)}, verdict{deny: true, reason: "no"}},
		{"block", []hookCmd{cmd(`echo '{"decision":"block","reason":"nope"}'`)}, verdict{deny: true, reason: "nope"}},
		{"stop and deny", []hookCmd{cmd(`echo '{"continue":false,"stopReason":"abort","hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"abort"}}'`)}, verdict{deny: true, reason: "abort", stop: true, stopReason: "abort"}},
		{"blocking exit 2", []hookCmd{cmd(`echo 'relay down' >&2; exit 2`)}, verdict{deny: true, reason: "relay down"}},
		{"failed hook goes on", []hookCmd{cmd(`echo boom >&2; exit 1`)}, verdict{}},
		{"plain stdout goes on", []hookCmd{cmd(`echo hello`)}, verdict{}},
		{"context", []hookCmd{cmd(`echo '{"hookSpecificOutput":{"additionalContext":"ctx"}}'`)}, verdict{context: "ctx"}},
		{"one deny of two wins", []hookCmd{cmd(`true`), cmd(`echo '{"decision":"block","reason":"b"}'`)}, verdict{deny: true, reason: "b"}},
	}
	for _, c := range cases {
		h, err := loadHooks(settings(t, c.cmds...), "s-1", io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if got := h.run(context.Background(), "PreToolUse", "mcp__conform__read", nil); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}

// A hook's stdin is the event's JSON; a hook whose matcher does not match
// the tool does not run; a hook that outlives its timeout is ended with
// what it started, and the agent goes on.
func TestHookStdinMatcherAndTimeout(t *testing.T) {
	out := filepath.Join(t.TempDir(), "stdin.json")
	h, err := loadHooks(settings(t, cmd("cat > "+out)), "s-1", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	h.run(context.Background(), "PreToolUse", "mcp__conform__read", map[string]any{"tool_name": "mcp__conform__read", "tool_input": map[string]any{"path": "a"}})
	b, _ := os.ReadFile(out)
	for _, want := range []string{`"hook_event_name":"PreToolUse"`, `"session_id":"s-1"`, `"tool_input":{"path":"a"}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("stdin %s lacks %s", b, want)
		}
	}
	_ = os.Remove(out)
	h.run(context.Background(), "PreToolUse", "Bash", nil)
	if _, err := os.Stat(out); err == nil {
		t.Error("a hook matching mcp__* ran for Bash")
	}

	slow := hookCmd{Type: "command", Command: `sleep 30 & sleep 30; echo '{"decision":"block"}'`, Timeout: 0.3}
	h, err = loadHooks(settings(t, slow), "s-1", io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if got := h.run(context.Background(), "PreToolUse", "mcp__x", nil); got != (verdict{}) {
		t.Errorf("a timed-out hook decided %+v; want nothing (the agent goes on)", got)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a 0.3 s hook with a child held the agent %v", d)
	}
}

func TestHookSettingsRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.json")
	_ = os.WriteFile(p, []byte(`{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"prompt","prompt":"x"}]}]}}`), 0o600)
	if _, err := loadHooks(p, "s", io.Discard); err == nil || !strings.Contains(err.Error(), "command hooks") {
		t.Errorf("a prompt hook: got %v, want a refusal naming command hooks", err)
	}
}
