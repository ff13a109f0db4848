package mcpserve

import (
	"testing"

	"github.com/agentconform/conform/internal/golden"
)

func TestAgentConfigsGolden(t *testing.T) {
	e := Endpoint{Name: "conform", URL: "http://127.0.0.1:40123/mcp"}
	cc, err := ClaudeCodeConfig(e)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "claude-code.mcp.json", cc)
	cx, err := CodexConfig(e)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "codex.config.toml", []byte(cx))
	gm, err := GeminiMCPServers(e)
	if err != nil {
		t.Fatal(err)
	}
	gb, _ := marshal(map[string]any{"mcpServers": gm})
	golden.Check(t, "gemini.settings.json", gb)
	oc, err := OpencodeMCP(e)
	if err != nil {
		t.Fatal(err)
	}
	ob, _ := marshal(map[string]any{"mcp": oc})
	golden.Check(t, "opencode.json", ob)
}

func TestAgentConfigsRefuseBadEndpoints(t *testing.T) {
	for _, e := range []Endpoint{
		{Name: "", URL: "http://127.0.0.1:1/mcp"},
		{Name: "a.b", URL: "http://127.0.0.1:1/mcp"},
		{Name: "x]\n[evil", URL: "http://127.0.0.1:1/mcp"},
		{Name: "ok", URL: "127.0.0.1:1"},
	} {
		if _, err := ClaudeCodeConfig(e); err == nil {
			t.Errorf("ClaudeCodeConfig(%+v): no error", e)
		}
		if _, err := CodexConfig(e); err == nil {
			t.Errorf("CodexConfig(%+v): no error", e)
		}
		if _, err := GeminiMCPServers(e); err == nil {
			t.Errorf("GeminiMCPServers(%+v): no error", e)
		}
		if _, err := OpencodeMCP(e); err == nil {
			t.Errorf("OpencodeMCP(%+v): no error", e)
		}
	}
}
