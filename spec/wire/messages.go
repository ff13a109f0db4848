package wire

import "encoding/json"

// CallContext is set on every model and tool request (TA-31) and on every
// other kernel → harness request so the harness can attribute it.
type CallContext struct {
	SessionID        string `json:"session_id"`
	TurnID           string `json:"turn_id"`
	WorkingDirectory string `json:"working_directory"`
}

// Message is a canonical content-block message.
type Message struct {
	Role    string         `json:"role"` // "user", "assistant" or "system"
	Content []ContentBlock `json:"content"`
}

// Content block types.
const (
	BlockText       = "text"
	BlockToolUse    = "tool_use"
	BlockToolResult = "tool_result"
)

// ContentBlock is text, a tool_use or a tool_result.
type ContentBlock struct {
	Type string `json:"type"`
	// Text: text blocks.
	Text string `json:"text,omitempty"`
	// ID, Name, Input: tool_use blocks.
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	// ToolUseID, Content, IsError, ErrorCategory: tool_result blocks.
	ToolUseID     string `json:"tool_use_id,omitempty"`
	Content       string `json:"content,omitempty"`
	IsError       bool   `json:"is_error,omitempty"`
	ErrorCategory string `json:"error_category,omitempty"`
}

// Contribution is one context provider's addition to the request.
type Contribution struct {
	Source string `json:"source"`
	Text   string `json:"text"`
}

// ContextAssembleParams is step 1's Contribute call.
type ContextAssembleParams struct {
	CallContext CallContext `json:"call_context"`
	Turn        int         `json:"turn"`
	History     []Message   `json:"history"`
	// Reduce asks the provider to shrink its contribution after a
	// context_length_exceeded error (ER-06).
	Reduce bool `json:"reduce,omitempty"`
}

// ContextAssembleResult carries the contributions in order.
type ContextAssembleResult struct {
	Contributions []Contribution `json:"contributions"`
}

// ToolSpec is what the model is offered for one tool.
type ToolSpec struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	InputSchema map[string]any `json:"input_schema,omitempty"`
}

// ModelStreamParams is one completion request (steps 3–4).
type ModelStreamParams struct {
	CallContext      CallContext    `json:"call_context"`
	Purpose          string         `json:"purpose"`
	Model            string         `json:"model"`
	Messages         []Message      `json:"messages"`
	Tools            []ToolSpec     `json:"tools"`
	AssembledContext []Contribution `json:"assembled_context"`
	// Attempt counts from 1; retries of the same request increment it.
	Attempt int `json:"attempt"`
	// Skills and ActiveSkill (deterministic-first profile): the skills the
	// model may route to now, and the skill that is active.
	Skills      []SkillSpec `json:"skills,omitempty"`
	ActiveSkill string      `json:"active_skill,omitempty"`
}

// ModelStreamResult is the whole scripted stream, in order.
type ModelStreamResult struct {
	Events []StreamEvent `json:"events"`
}

// Stream event types.
const (
	EventTextDelta = "text_delta"
	EventToolCall  = "tool_call"
	EventUsage     = "usage"
	EventStop      = "stop"
	EventErrorSE   = "error"
)

// StreamEvent is one element of a model stream.
type StreamEvent struct {
	Type       string          `json:"type"`
	Text       string          `json:"text,omitempty"`
	ID         string          `json:"id,omitempty"`
	Name       string          `json:"name,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`
	Usage      *Usage          `json:"usage,omitempty"`
	StopReason string          `json:"stop_reason,omitempty"`
	Error      *ModelError     `json:"error,omitempty"`
}

// Usage counters never overlap; absent ones count as zero (TA-24).
type Usage struct {
	InputTokens      int64  `json:"input_tokens"`
	OutputTokens     int64  `json:"output_tokens"`
	CacheReadTokens  *int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens *int64 `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  *int64 `json:"reasoning_tokens,omitempty"`
}

// Model error categories.
const (
	ModelErrContextLength   = "context_length_exceeded"
	ModelErrRateLimited     = "rate_limited"
	ModelErrOverloaded      = "overloaded"
	ModelErrAuth            = "auth_error"
	ModelErrInvalidRequest  = "invalid_request"
	ModelErrContentFiltered = "content_filtered"
	ModelErrUnknown         = "unknown"
)

// ModelError is a classified model failure.
type ModelError struct {
	Category     string `json:"category"`
	Message      string `json:"message"`
	Retryable    bool   `json:"retryable"`
	RetryAfterMS *int64 `json:"retry_after_ms,omitempty"`
}

// ToolInvokeParams runs one call.
type ToolInvokeParams struct {
	CallContext CallContext     `json:"call_context"`
	CallID      string          `json:"call_id"`
	Provider    string          `json:"provider"`
	Tool        string          `json:"tool"`
	Input       json.RawMessage `json:"input"`
	Attempt     int             `json:"attempt"`
}

// Tool error categories.
const (
	ToolErrInvalidArguments = "invalid_arguments"
	ToolErrNotFound         = "not_found"
	ToolErrPermissionDenied = "permission_denied"
	ToolErrExecutionFailed  = "execution_failed"
	ToolErrTimeout          = "timeout"
	ToolErrConcurrency      = "concurrency_conflict"
	ToolErrCancelled        = "cancelled"
	ToolErrProcessCrashed   = "process_crashed"
	ToolErrUnknown          = "unknown"
)

// ToolInvokeResult is the call's outcome. A crash is not a result: the fake
// answers with the JSON-RPC error CodeProcessCrashed and the kernel builds the
// process_crashed result itself (ER-09).
type ToolInvokeResult struct {
	Output        json.RawMessage `json:"output"`
	IsError       bool            `json:"is_error,omitempty"`
	ErrorCategory string          `json:"error_category,omitempty"`
	Retryable     bool            `json:"retryable,omitempty"`
}

// ToolPreviewParams asks a provider for a resource item's preview.
type ToolPreviewParams struct {
	CallContext CallContext     `json:"call_context"`
	CallID      string          `json:"call_id"`
	Provider    string          `json:"provider"`
	Tool        string          `json:"tool"`
	Input       json.RawMessage `json:"input"`
}

// ToolPreviewResult is the preview text.
type ToolPreviewResult struct {
	Preview string `json:"preview"`
}

// PlanItem is one resource call in the plan; kind, risk, description and
// preview are snapshots taken when the plan is built (PA-13).
type PlanItem struct {
	ID          string          `json:"id"`
	ToolCallID  string          `json:"tool_call_id"`
	Provider    string          `json:"provider"`
	Tool        string          `json:"tool"`
	Kind        string          `json:"kind"`
	Risk        string          `json:"risk"`
	Description string          `json:"description"`
	Preview     *string         `json:"preview,omitempty"`
	Input       json.RawMessage `json:"input"`
	Decision    string          `json:"decision"`
	DecidedBy   string          `json:"decided_by"`
}

// Plan is the set of resource items of one turn.
type Plan struct {
	Items []PlanItem `json:"items"`
}

// PermissionParams is the ask flow: one or more pending items (several only
// when the kernel batches asks, PA-02).
type PermissionParams struct {
	CallContext CallContext `json:"call_context"`
	Items       []PlanItem  `json:"items"`
}

// Decision scopes.
const (
	ScopeOnce    = "ONCE"
	ScopeSession = "SESSION"
	ScopeAlways  = "ALWAYS"
)

// PlanDecision is the frontend's answer for one item.
type PlanDecision struct {
	PlanItemID     string          `json:"plan_item_id"`
	Decision       string          `json:"decision"`
	Scope          string          `json:"scope,omitempty"`
	CorrectedInput json.RawMessage `json:"corrected_input,omitempty"`
}

// PermissionResult answers every item it was asked about.
type PermissionResult struct {
	Decisions []PlanDecision `json:"decisions"`
}

// InteractiveParams asks the human for an interactive call's answer.
type InteractiveParams struct {
	CallContext CallContext     `json:"call_context"`
	CallID      string          `json:"call_id"`
	ToolName    string          `json:"tool_name"`
	Prompt      string          `json:"prompt"`
	Input       json.RawMessage `json:"input"`
}

// InteractiveResult is the human's answer; it becomes the call's result.
type InteractiveResult struct {
	Response string `json:"response"`
}

// ToolCall names one tool_use inside hook payloads.
type ToolCall struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Provider string          `json:"provider"`
	Kind     string          `json:"kind"`
	Input    json.RawMessage `json:"input"`
}

// ToolResult is a call's outcome inside hook payloads.
type ToolResult struct {
	Content       string `json:"content"`
	IsError       bool   `json:"is_error,omitempty"`
	ErrorCategory string `json:"error_category,omitempty"`
}

// HookPayload is the point-specific payload. Variant names the point; only
// the fields of that variant are set.
type HookPayload struct {
	Variant string `json:"variant"`
	// session-start, session-end
	SessionID    string   `json:"session_id,omitempty"`
	Prompt       string   `json:"prompt,omitempty"`
	Status       string   `json:"status,omitempty"`
	FinalMessage *Message `json:"final_message,omitempty"`
	// pre-model-call (Messages is the only field a transform may change)
	Model    string     `json:"model,omitempty"`
	Messages []Message  `json:"messages,omitempty"`
	Tools    []ToolSpec `json:"tools,omitempty"`
	// post-model-response
	Message    *Message    `json:"message,omitempty"`
	Usage      *Usage      `json:"usage,omitempty"`
	CostUSD    *float64    `json:"cost_usd,omitempty"`
	StopReason string      `json:"stop_reason,omitempty"`
	Error      *ModelError `json:"error,omitempty"`
	// pre-tool-call, post-tool-call
	Call   *ToolCall   `json:"call,omitempty"`
	Result *ToolResult `json:"result,omitempty"`
	// plan-ready, post-apply
	Plan *Plan `json:"plan,omitempty"`
}

// HookDispatchParams is one subscriber's dispatch.
type HookDispatchParams struct {
	CallContext CallContext `json:"call_context"`
	Point       string      `json:"point"`
	Subscriber  string      `json:"subscriber"`
	Mode        string      `json:"mode"`
	TimeoutMS   int         `json:"timeout_ms"`
	Payload     HookPayload `json:"payload"`
}

// HookDispatchResult is a subscriber's answer: ack (observe), transform
// (with payload) or veto (with decision). A subscriber failure is a JSON-RPC
// error (CodeHookFailed or CodeProcessCrashed).
type HookDispatchResult struct {
	Outcome  string       `json:"outcome"`
	Payload  *HookPayload `json:"payload,omitempty"`
	Decision string       `json:"decision,omitempty"`
	Reason   string       `json:"reason,omitempty"`
}

// Span is one finished trace span, forwarded by the kernel.
type Span struct {
	TraceID       string         `json:"trace_id"`
	SpanID        string         `json:"span_id"`
	ParentSpanID  string         `json:"parent_span_id,omitempty"`
	Name          string         `json:"name"`
	Role          string         `json:"role"`
	SessionID     string         `json:"session_id"`
	TurnID        string         `json:"turn_id,omitempty"`
	StartUnixNano int64          `json:"start_unix_nano"`
	EndUnixNano   int64          `json:"end_unix_nano"`
	Attributes    map[string]any `json:"attributes,omitempty"`
}

// CostUsage is the cost the kernel computed for one usage event (TA-06).
type CostUsage struct {
	SessionID       string   `json:"session_id"`
	TurnID          string   `json:"turn_id"`
	Model           string   `json:"model"`
	Usage           Usage    `json:"usage"`
	CostUSD         float64  `json:"cost_usd"`
	SessionTotalUSD float64  `json:"session_total_usd"`
	TierIndex       int      `json:"tier_index"`
	WeightedTokens  *float64 `json:"weighted_tokens,omitempty"`
}

// SessionMeta is a session_meta row, sent when a session starts and again
// when it ends.
type SessionMeta struct {
	SessionID              string   `json:"session_id"`
	ParentSessionID        string   `json:"parent_session_id,omitempty"`
	Profile                string   `json:"profile"`
	Depth                  int      `json:"depth"`
	RemainingDepth         *int     `json:"remaining_depth,omitempty"`
	RemainingCostBudgetUSD *float64 `json:"remaining_cost_budget_usd,omitempty"`
	Status                 string   `json:"status"`
	StartedAt              string   `json:"started_at"`
	EndedAt                string   `json:"ended_at,omitempty"`
	FinalMessage           *Message `json:"final_message,omitempty"`
}

// Event is a state-backend event row (hook_error, limit_reached, ...).
type Event struct {
	SessionID string         `json:"session_id"`
	TurnID    string         `json:"turn_id,omitempty"`
	Kind      string         `json:"kind"`
	Producer  string         `json:"producer"`
	Payload   map[string]any `json:"payload,omitempty"`
}
