package pluginconform

import (
	"context"

	"google.golang.org/grpc/stats"
)

// sendCancelKey carries a cancel function that cancelOnSend calls once the
// request has been written to the connection: the call is then cancelled
// in flight, after the plugin can have it and before it can have answered.
type sendCancelKey struct{}

func withCancelOnSend(ctx context.Context, cancel context.CancelFunc) context.Context {
	return context.WithValue(ctx, sendCancelKey{}, cancel)
}

// cancelOnSend is a gRPC stats handler on the connection to the plugin.
type cancelOnSend struct{}

func (cancelOnSend) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }

func (cancelOnSend) HandleRPC(ctx context.Context, s stats.RPCStats) {
	if _, ok := s.(*stats.OutPayload); !ok {
		return
	}
	if cancel, ok := ctx.Value(sendCancelKey{}).(context.CancelFunc); ok {
		cancel()
	}
}

func (cancelOnSend) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }

func (cancelOnSend) HandleConn(context.Context, stats.ConnStats) {}
