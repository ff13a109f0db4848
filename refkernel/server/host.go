package server

import (
	"context"

	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

// connHost is the Host of a session served over the wire: each method is a
// request to the harness on the session's connection. A JSON-RPC error
// answer comes back as *jsonrpc.Error, whose code host.Code understands.
type connHost struct {
	conn *jsonrpc.Conn
}

func call[P, R any](ctx context.Context, c *jsonrpc.Conn, method string, p P) (R, error) {
	var r R
	err := c.Call(ctx, method, p, &r)
	return r, err
}

func (h connHost) Assemble(ctx context.Context, p wire.ContextAssembleParams) (wire.ContextAssembleResult, error) {
	return call[wire.ContextAssembleParams, wire.ContextAssembleResult](ctx, h.conn, wire.MethodContextAssemble, p)
}

func (h connHost) Hook(ctx context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
	return call[wire.HookDispatchParams, wire.HookDispatchResult](ctx, h.conn, wire.MethodHookDispatch, p)
}

func (h connHost) Stream(ctx context.Context, p wire.ModelStreamParams) (wire.ModelStreamResult, error) {
	return call[wire.ModelStreamParams, wire.ModelStreamResult](ctx, h.conn, wire.MethodModelStream, p)
}

func (h connHost) Invoke(ctx context.Context, p wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
	return call[wire.ToolInvokeParams, wire.ToolInvokeResult](ctx, h.conn, wire.MethodToolInvoke, p)
}

func (h connHost) Preview(ctx context.Context, p wire.ToolPreviewParams) (wire.ToolPreviewResult, error) {
	return call[wire.ToolPreviewParams, wire.ToolPreviewResult](ctx, h.conn, wire.MethodToolPreview, p)
}

func (h connHost) Permission(ctx context.Context, p wire.PermissionParams) (wire.PermissionResult, error) {
	return call[wire.PermissionParams, wire.PermissionResult](ctx, h.conn, wire.MethodFrontendPermission, p)
}

func (h connHost) Interactive(ctx context.Context, p wire.InteractiveParams) (wire.InteractiveResult, error) {
	return call[wire.InteractiveParams, wire.InteractiveResult](ctx, h.conn, wire.MethodFrontendInteractive, p)
}

// Notify sends a notification; a closed connection loses it, which only
// happens when nobody is listening any more.
func (h connHost) Notify(method string, params any) { _ = h.conn.Notify(method, params) }
