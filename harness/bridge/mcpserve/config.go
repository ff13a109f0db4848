package mcpserve

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Endpoint is where an agent finds the server: the name the agent files its
// tools under (Claude Code calls them mcp__NAME__tool, Codex puts them in
// the namespace mcp__NAME) and the Streamable HTTP URL.
type Endpoint struct {
	Name string
	URL  string
}

func (e Endpoint) check() error {
	if e.Name == "" || strings.ContainsAny(e.Name, " .\"'[]\n") {
		return fmt.Errorf("mcpserve: server name %q must be non-empty with no spaces, dots, quotes or brackets", e.Name)
	}
	if !strings.HasPrefix(e.URL, "http://") && !strings.HasPrefix(e.URL, "https://") {
		return fmt.Errorf("mcpserve: server URL %q is not an http(s) URL", e.URL)
	}
	return nil
}

// ClaudeCodeConfig is the file for `claude --mcp-config FILE`: an
// mcpServers object whose entry has type "http" (Streamable HTTP) and url
// (Claude Code docs, "Installing MCP servers": .mcp.json format).
func ClaudeCodeConfig(e Endpoint) ([]byte, error) {
	if err := e.check(); err != nil {
		return nil, err
	}
	return marshal(map[string]any{"mcpServers": map[string]any{e.Name: map[string]any{"type": "http", "url": e.URL}}})
}

// CodexConfig is the TOML table to append to ~/.codex/config.toml: a
// Streamable HTTP server is a [mcp_servers.NAME] table with url (Codex docs,
// config reference, "HTTP Streamable Servers"); default_tools_approval_mode
// "approve" lets headless `codex exec` run its tools without asking (seen in
// /work/shared/agents/README.md: without it the tools are refused).
func CodexConfig(e Endpoint) (string, error) {
	if err := e.check(); err != nil {
		return "", err
	}
	u, _ := json.Marshal(e.URL) // a JSON string is a valid TOML basic string
	return fmt.Sprintf("[mcp_servers.%s]\nurl = %s\ndefault_tools_approval_mode = \"approve\"\n", e.Name, u), nil
}

// GeminiMCPServers is the value of Gemini CLI's settings.json "mcpServers":
// httpUrl selects Streamable HTTP (url would be SSE) and trust true offers
// the tools without a confirmation (else headless mode does not offer them,
// /work/shared/agents/README.md).
func GeminiMCPServers(e Endpoint) (map[string]any, error) {
	if err := e.check(); err != nil {
		return nil, err
	}
	return map[string]any{e.Name: map[string]any{"httpUrl": e.URL, "trust": true}}, nil
}

// OpencodeMCP is the value of opencode.json's "mcp": a remote server
// (opencode docs, "MCP servers": type "remote", url, enabled).
func OpencodeMCP(e Endpoint) (map[string]any, error) {
	if err := e.check(); err != nil {
		return nil, err
	}
	return map[string]any{e.Name: map[string]any{"type": "remote", "url": e.URL, "enabled": true}}, nil
}

func marshal(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
