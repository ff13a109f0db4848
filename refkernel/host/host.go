package host

import (
	"context"

	"github.com/agentconform/conform/spec/wire"
)

// Host is everything the loop can ask of the harness. Over the wire each
// method is one kernel → harness request; in-process tests implement it
// directly. Methods are called concurrently (observers, parallel tool calls).
type Host interface {
	Assemble(ctx context.Context, p wire.ContextAssembleParams) (wire.ContextAssembleResult, error)
	Hook(ctx context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error)
	Stream(ctx context.Context, p wire.ModelStreamParams) (wire.ModelStreamResult, error)
	Invoke(ctx context.Context, p wire.ToolInvokeParams) (wire.ToolInvokeResult, error)
	Preview(ctx context.Context, p wire.ToolPreviewParams) (wire.ToolPreviewResult, error)
	Permission(ctx context.Context, p wire.PermissionParams) (wire.PermissionResult, error)
	Interactive(ctx context.Context, p wire.InteractiveParams) (wire.InteractiveResult, error)
	Notifier
}

// Notifier sends a notification (trace/span, cost/usage, session/meta,
// event). Notifications are fire-and-forget: a lost one is the transport's
// problem, never a reason to stop the loop.
type Notifier interface {
	Notify(method string, params any)
}
