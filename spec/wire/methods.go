package wire

// Version is the protocol version this binding speaks.
const Version = "conform.wire/v1"

// Methods the harness calls on the kernel.
const (
	MethodInitialize      = "initialize"
	MethodSessionRun      = "session/run"
	MethodSessionCancel   = "session/cancel"
	MethodSessionSpawn    = "session/spawn"
	MethodSessionContinue = "session/continue"
	MethodShutdown        = "shutdown"
)

// Methods the kernel calls on the harness.
const (
	MethodContextAssemble     = "context/assemble"
	MethodHookDispatch        = "hook/dispatch"
	MethodModelStream         = "model/stream"
	MethodToolInvoke          = "tool/invoke"
	MethodToolPreview         = "tool/preview"
	MethodFrontendPermission  = "frontend/permission"
	MethodFrontendInteractive = "frontend/interactive"
)

// Notifications the kernel sends to the harness.
const (
	NotifyTraceSpan   = "trace/span"
	NotifyCostUsage   = "cost/usage"
	NotifySessionMeta = "session/meta"
	NotifyEvent       = "event"
	// NotifyCancelRequest tells the peer that the sender no longer waits for
	// the answer to an earlier request (a hook that timed out, a model stream
	// of a cancelled session). Either side may send it.
	NotifyCancelRequest = "$/cancelRequest"
)

// Hook points in loop order.
const (
	PointSessionStart      = "session-start"
	PointContextAssemble   = "context-assemble"
	PointPreModelCall      = "pre-model-call"
	PointPostModelResponse = "post-model-response"
	PointPreToolCall       = "pre-tool-call"
	PointPlanReady         = "plan-ready"
	PointPostToolCall      = "post-tool-call"
	PointPostApply         = "post-apply"
	PointSessionEnd        = "session-end"
)

// HookPoints lists the nine points in loop order.
var HookPoints = []string{
	PointSessionStart, PointContextAssemble, PointPreModelCall, PointPostModelResponse,
	PointPreToolCall, PointPlanReady, PointPostToolCall, PointPostApply, PointSessionEnd,
}

// Session statuses (RunSessionResult.status, session_meta.status).
const (
	StatusRunning           = "running"
	StatusCompleted         = "completed"
	StatusErrorMaxTurns     = "error_max_turns"
	StatusErrorMaxBudgetUSD = "error_max_budget_usd"
	StatusErrorMaxWallClock = "error_max_wall_clock"
	StatusCancelled         = "cancelled"
	StatusFailed            = "failed"
)

// Tool kinds.
const (
	KindDataSource  = "data_source"
	KindResource    = "resource"
	KindInteractive = "interactive"
)

// Hook modes and decisions.
const (
	ModeObserve   = "observe"
	ModeTransform = "transform"
	ModeVeto      = "veto"

	DecisionAllow       = "ALLOW"
	DecisionDeny        = "DENY"
	DecisionUnspecified = "UNSPECIFIED"
)

// Hook response outcomes.
const (
	OutcomeAck       = "ack"
	OutcomeTransform = "transform"
	OutcomeVeto      = "veto"
)

// HookErrorCategory values.
const (
	HookErrTransformFailed = "TRANSFORM_FAILED"
	HookErrVetoFailed      = "VETO_FAILED"
	HookErrTimeout         = "TIMEOUT"
	HookErrInvalidResponse = "INVALID_RESPONSE"
	HookErrProcessCrashed  = "PROCESS_CRASHED"
	HookErrUnknown         = "UNKNOWN"
)

// Policy decisions.
const (
	PolicyAllow = "allow"
	PolicyAsk   = "ask"
	PolicyDeny  = "deny"
)

// Model request purposes. Checks never rely on the label where the spec makes
// the behaviour itself observable; it exists so fakes can script by purpose.
const (
	PurposeTurn        = "turn"
	PurposeFinalAnswer = "final_answer"
	PurposeLoopCheck   = "loop_check"
)

// Event kinds the kernel reports with NotifyEvent.
const (
	EventHookError      = "hook_error"
	EventLimitReached   = "limit_reached"
	EventDoomLoop       = "doom_loop"
	EventCircuitBreaker = "circuit_breaker"
	EventRetry          = "retry"
	EventAskDowngrade   = "ask_downgrade"
	EventPlanItem       = "plan_item"
	EventModelError     = "model_error"
	EventContentFilter  = "content_filtered"
	EventToolError      = "tool_error"
	EventMessage        = "message"
	EventStatus         = "status"
	EventError          = "error"
	EventLog            = "log"
)

// Span roles: the kernel maps its own span names to these with the
// attribute RoleAttribute, since span names are not standardized.
const (
	RoleAttribute     = "conform.role"
	RoleSession       = "session"
	RoleTurn          = "turn"
	RoleModelCall     = "model_call"
	RoleToolExec      = "tool_execution"
	RolePolicyChain   = "policy_chain"
	RoleHookDispatch  = "hook_dispatch"
	RoleHookSubscribe = "hook_subscriber"
)

// JSON-RPC error codes used by the protocol beyond the standard ones.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
	// CodeConfigRejected: the session config was refused before the session
	// started (bad pricing tiers, unsupported hook point, bad retry block).
	CodeConfigRejected = -32001
	// CodeHookFailed: a hook subscriber's scripted failure (the fake answers
	// a hook/dispatch with this error to simulate a subscriber error).
	CodeHookFailed = -32002
	// CodeProcessCrashed: the fake provider behind the call "crashed".
	CodeProcessCrashed = -32003
	// CodeCancelled: the request was cancelled.
	CodeCancelled = -32004
	// CodeUnknownSession: the session id is not known to the kernel.
	CodeUnknownSession = -32005
	// CodeVersionMismatch: no common protocol version.
	CodeVersionMismatch = -32006
)
