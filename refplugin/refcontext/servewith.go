package refcontext

import (
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	contextv1 "github.com/agentconform/conform/api/gen/pluggableharness/context/v1"
	"github.com/agentconform/conform/refplugin/refkit"
)

// ServeWith serves a provider with faults f as Serve does, registered
// through wrap: conform's own tests use it for a misbehaviour no fault
// switch produces (a Render that crashes the plugin). The plugin's main
// never calls it.
func ServeWith(f Faults, wrap func(*Provider) contextv1.ContextServiceServer) {
	refkit.Serve("context", func(b *plugin.GRPCBroker, s *grpc.Server) {
		p := New(f)
		p.kernel.Broker = b
		contextv1.RegisterContextServiceServer(s, wrap(p))
	})
}
