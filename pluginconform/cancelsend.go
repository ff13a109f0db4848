package pluginconform

import (
	"context"

	"google.golang.org/grpc/stats"
)

// sendCancelKey carries a function cancelOnSend calls once the request has
// been handed to the connection; cancelling a set time after that lands
// the cancel while a subscriber that works that long still works.
type sendCancelKey struct{}

func withOnSend(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, sendCancelKey{}, f)
}

// cancelOnSend is a gRPC stats handler on the connection to the plugin.
type cancelOnSend struct{}

func (cancelOnSend) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }

func (cancelOnSend) HandleRPC(ctx context.Context, s stats.RPCStats) {
	if _, ok := s.(*stats.OutPayload); !ok {
		return
	}
	if f, ok := ctx.Value(sendCancelKey{}).(func()); ok {
		f()
	}
}

func (cancelOnSend) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }

func (cancelOnSend) HandleConn(context.Context, stats.ConnStats) {}
