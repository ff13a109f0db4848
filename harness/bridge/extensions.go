package bridge

import (
	"embed"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// extensions are MCP clients the bridge writes for agents that have none
// but load extension files: the scenario's tools reach the bridge's MCP
// server through them (pi). Each is glue, declared by the profile that
// names it.
//
//go:embed extensions/*.ts
var extensions embed.FS

// extensionNames are the names a profile's mcp_extension may take.
func extensionNames() []string {
	entries, _ := extensions.ReadDir("extensions")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), filepath.Ext(e.Name())))
	}
	return out
}

// extension is the named extension's source, placeholders unexpanded.
func extension(name string) (string, error) {
	if !slices.Contains(extensionNames(), name) {
		return "", fmt.Errorf("mcp_extension %q: the bridge has %s", name, strings.Join(extensionNames(), ", "))
	}
	b, err := extensions.ReadFile("extensions/" + name + ".ts")
	return string(b), err
}
