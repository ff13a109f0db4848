package refplugin

import (
	"github.com/hashicorp/go-plugin"
)

// Handshake is the upstream ecosystem's go-plugin handshake: one magic
// cookie for every plugin category, protocol version 1.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  1,
	MagicCookieKey:   "PLUGGABLEHARNESS_AGENT_PLUGIN",
	MagicCookieValue: "pluggableharness-agent-v1-a6f3c9d2-plugin-handshake",
}

// Serve serves the provider (with faults f) as a go-plugin "tool" plugin
// on this process's stdio; it returns when the host is done with it.
func Serve(f Faults) {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: Handshake,
		Plugins:         plugin.PluginSet{"tool": &Plugin{Faults: f}},
		GRPCServer:      plugin.DefaultGRPCServer,
	})
}
