package model

import (
	"context"
	"errors"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	modelv1 "github.com/agentconform/conform/api/gen/pluggableharness/model/v1"
	"github.com/agentconform/conform/refplugin"
)

// Serve serves the provider (with faults f) as a go-plugin "model" plugin
// on this process's stdio; it returns when the host is done with it.
func Serve(f Faults) { ServeWith(f, Readings{}) }

// ServeWith serves the provider with faults f and readings rd.
func ServeWith(f Faults, rd Readings) {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: refplugin.Handshake,
		Plugins:         plugin.PluginSet{"model": &Plugin{Faults: f, Readings: rd}},
		GRPCServer:      plugin.DefaultGRPCServer,
	})
}

// Plugin is the go-plugin entry of the provider: it serves ModelService
// and, for the hook points it declares, HookSubscriberService.
type Plugin struct {
	plugin.NetRPCUnsupportedPlugin
	Faults   Faults
	Readings Readings
}

// GRPCServer registers both services.
func (pl *Plugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	p := NewWith(pl.Faults, pl.Readings)
	p.broker = broker
	modelv1.RegisterModelServiceServer(s, p)
	if !pl.Faults.HooksUnserved {
		refplugin.RegisterHookSubscriber(s)
	}
	return nil
}

// GRPCClient is never used: the plugin side only serves.
func (pl *Plugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("refmodel only serves")
}
