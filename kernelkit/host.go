package kernelkit

import (
	"context"

	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

// Host is the harness as the kernel sees it: every method is one
// kernel → harness request (PROTOCOL.md §7) or notification (§8) on the
// connection, safe for concurrent use. A request blocks until the harness
// answers; when ctx ends first the harness is told ($/cancelRequest) and
// ctx's error is returned. A JSON-RPC error answer comes back as *Error, an
// answer that breaks its schema as *ProtocolViolation, and a closed
// connection as ErrClosed.
//
// Host has the method set of the reference kernel's refkernel/host.Host,
// so a loop written against that interface runs on it unchanged.
type Host struct {
	conn *jsonrpc.Conn
}

func call[P, R any](ctx context.Context, h *Host, method string, p P) (R, error) {
	var r R
	err := h.conn.Call(ctx, method, p, &r)
	return r, err
}

// Assemble is context/assemble, step 1 of every turn (§7.1).
func (h *Host) Assemble(ctx context.Context, p wire.ContextAssembleParams) (wire.ContextAssembleResult, error) {
	return call[wire.ContextAssembleParams, wire.ContextAssembleResult](ctx, h, wire.MethodContextAssemble, p)
}

// Hook is one subscriber's hook/dispatch (§7.2). Session.Dispatch runs a
// whole point's chain with the protocol's rules.
func (h *Host) Hook(ctx context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
	return call[wire.HookDispatchParams, wire.HookDispatchResult](ctx, h, wire.MethodHookDispatch, p)
}

// Stream is one model call, model/stream (§7.3).
func (h *Host) Stream(ctx context.Context, p wire.ModelStreamParams) (wire.ModelStreamResult, error) {
	return call[wire.ModelStreamParams, wire.ModelStreamResult](ctx, h, wire.MethodModelStream, p)
}

// Invoke runs one tool call, tool/invoke (§7.4). A crash of the provider
// is an *Error with wire.CodeProcessCrashed; ToolResultOf turns either
// outcome into the call's result.
func (h *Host) Invoke(ctx context.Context, p wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
	return call[wire.ToolInvokeParams, wire.ToolInvokeResult](ctx, h, wire.MethodToolInvoke, p)
}

// Preview asks for a resource call's preview, tool/preview (§7.5).
func (h *Host) Preview(ctx context.Context, p wire.ToolPreviewParams) (wire.ToolPreviewResult, error) {
	return call[wire.ToolPreviewParams, wire.ToolPreviewResult](ctx, h, wire.MethodToolPreview, p)
}

// Permission asks the user about pending ask items, frontend/permission
// (§7.6).
func (h *Host) Permission(ctx context.Context, p wire.PermissionParams) (wire.PermissionResult, error) {
	return call[wire.PermissionParams, wire.PermissionResult](ctx, h, wire.MethodFrontendPermission, p)
}

// Interactive runs an interactive call through the user,
// frontend/interactive (§7.7).
func (h *Host) Interactive(ctx context.Context, p wire.InteractiveParams) (wire.InteractiveResult, error) {
	return call[wire.InteractiveParams, wire.InteractiveResult](ctx, h, wire.MethodFrontendInteractive, p)
}

// Confirm asks the user to confirm a call, frontend/confirm (§17.6,
// deterministic-first profile only).
func (h *Host) Confirm(ctx context.Context, p wire.ConfirmParams) (wire.ConfirmResult, error) {
	return call[wire.ConfirmParams, wire.ConfirmResult](ctx, h, wire.MethodFrontendConfirm, p)
}

// Notify sends a notification. It never blocks on the harness's answer
// (there is none) and a closed connection loses it, which happens only
// when nobody listens any more.
func (h *Host) Notify(method string, params any) { _ = h.conn.Notify(method, params) }

// Span reports one finished span, trace/span (§8.1); send spans only when
// the session's config has telemetry on.
func (h *Host) Span(s wire.Span) { h.Notify(wire.NotifyTraceSpan, s) }

// Cost reports the cost of one usage event, cost/usage (§8.2).
func (h *Host) Cost(c wire.CostUsage) { h.Notify(wire.NotifyCostUsage, c) }

// Meta sends a session_meta row, session/meta (§8.3).
func (h *Host) Meta(m wire.SessionMeta) { h.Notify(wire.NotifySessionMeta, m) }

// Event sends a state-backend event row, event (§8.4).
func (h *Host) Event(e wire.Event) { h.Notify(wire.NotifyEvent, e) }
