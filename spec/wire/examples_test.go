package wire

import (
	"encoding/json"
	"testing"
)

// example is one Go value of a message part. Every method part has a fully
// populated variant and a minimal one (Go zero values wherever the sender
// may leave them), so the schemas and the Go types cannot drift apart.
type example struct {
	method, part, name string
	value              any
}

func ptr[T any](v T) *T { return &v }

func raw(s string) json.RawMessage { return json.RawMessage(s) }

var (
	fullCallContext = CallContext{SessionID: "root-1", TurnID: "root-1/t3", WorkingDirectory: "/work/scenario-7"}
	minCallContext  = CallContext{SessionID: "root-1"}

	assistantWithCall = Message{Role: "assistant", Content: []ContentBlock{
		{Type: BlockText, Text: "Let me read both files."},
		{Type: BlockToolUse, ID: "call-1", Name: "read", Input: raw(`{"path":"a.txt"}`)},
	}}
	toolResults = Message{Role: "user", Content: []ContentBlock{
		{Type: BlockToolResult, ToolUseID: "call-1", Content: "hello"},
		{Type: BlockToolResult, ToolUseID: "call-2", Content: "denied by policy", IsError: true, ErrorCategory: ToolErrPermissionDenied},
	}}
	finalText = Message{Role: "assistant", Content: []ContentBlock{{Type: BlockText, Text: "Done."}}}

	fullUsage = Usage{InputTokens: 400000, OutputTokens: 1200, CacheReadTokens: ptr[int64](1000), CacheWriteTokens: ptr[int64](0), ReasoningTokens: ptr[int64](300)}

	fullPlanItem = PlanItem{
		ID: "pi-1", ToolCallID: "call-3", Provider: "fs", Tool: "write", Kind: KindResource, Risk: "high",
		Description: "Write a file", Preview: ptr("--- a.txt\n+++ a.txt"), Input: raw(`{"path":"a.txt","text":"x"}`),
		Decision: PolicyAsk, DecidedBy: "rule:ask-writes",
	}
	minPlanItem = PlanItem{ID: "pi-2", Kind: KindResource}

	fullConfig = SessionConfig{
		Profile:          "default",
		WorkingDirectory: "/work/scenario-7",
		Bounds: Bounds{
			MaxTurns: ptr(3), MaxCostUSD: ptr(1.0), MaxWallClockS: ptr(2.5), Soft: true,
			Weights: &TokenWeights{SamplingTokenWeight: 4, PrefillTokenWeight: 1, MaxWeightedTokens: 1e6},
		},
		DoomLoop: &DoomLoop{Threshold: ptr(3), WindowSize: ptr(10), ModelCheckWindow: 20},
		Hooks: Hooks{DefaultTimeoutMS: 500, Subscribers: []Subscriber{
			{ID: "obs-1", Point: PointPreModelCall, Mode: ModeObserve},
			{ID: "tr-1", Point: PointPreModelCall, Mode: ModeTransform, TimeoutMS: 50, SupportedPoints: []string{PointPreModelCall, PointPostModelResponse}},
			{ID: "veto-1", Point: PointPlanReady, Mode: ModeVeto, ThirdParty: true},
		}},
		Policy: Policy{
			Rules: []PolicyRule{
				{Name: "allow-reads", Kind: KindDataSource, Decision: PolicyAllow},
				{Name: "ask-writes", Provider: "fs", Tool: "write", Decision: PolicyAsk},
				{Name: "deny-rm", Provider: "fs", Tool: "rm", Kind: KindResource, Decision: PolicyDeny},
			},
			CircuitBreaker: &CircuitBreaker{Consecutive: 3, Window: 10, WindowMax: 5},
			PersistAlways:  true,
		},
		PlanMode: true,
		Subagents: &Subagents{MaxConcurrent: 2, MaxDepth: 2, Profiles: []ChildProfile{
			{Name: "researcher", Tools: []string{"read", "spawn"}, MaxDepth: ptr(1), MaxCostUSD: ptr(0.5), MaxTurns: ptr(4), ForkParentHistory: true},
			{Name: "leaf", Tools: []string{}},
		}},
		Retry:     &Retry{BaseDelayMS: ptr(10), BackoffFactor: ptr(2.0), MaxRetries: ptr(5), SessionMaxRetries: ptr(8)},
		Telemetry: true,
		Model: ModelSpec{
			Name: "fake-1", SupportsToolUse: true, SupportsParallelToolCalls: true, CachingSupported: true,
			Pricing: Pricing{Currency: "USD", Tiers: []PricingTier{
				{EffectiveUntil: "2030-01-01T00:00:00Z", InputTokensUntil: ptr[int64](200000), InputPerMtok: 1, OutputPerMtok: 5, CacheReadPerMtok: ptr(0.1), CacheWritePerMtok: ptr(1.25)},
				{EffectiveUntil: "2030-01-01T00:00:00Z", InputTokensFrom: ptr[int64](200000), InputPerMtok: 2, OutputPerMtok: 10},
				{EffectiveFrom: "2030-01-01T00:00:00Z", InputPerMtok: 0.5, OutputPerMtok: 2.5},
			}},
			Fallbacks: []string{"fake-2"},
		},
		Tools: []ToolSchema{
			{Provider: "fs", Name: "read", Description: "Read a file", Kind: KindDataSource, Risk: "low",
				InputSchema:  map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}},
				OutputSchema: map[string]any{"type": "string"},
				Concurrency:  &ConcurrencySpec{Safe: true}, Idempotent: true},
			{Provider: "fs", Name: "write", Description: "Write a file", Kind: KindResource, Risk: "high",
				Concurrency: &ConcurrencySpec{Safe: true, KeyFields: []string{"path"}}, HasPreview: true},
			{Provider: "flow", Name: "finish", Description: "End the task", Kind: KindResource, Risk: "low", TerminatesTurn: true},
			{Provider: "agents", Name: "spawn", Description: "Run a sub-agent", Kind: KindResource, Risk: "critical", SpawnCapable: true},
			{Provider: "human", Name: "ask_user", Description: "Ask the user", Kind: KindInteractive, Risk: "low"},
		},
		Context: &ContextConfig{Providers: []string{"notes"}},
	}
	// minConfig is a config with every optional part left out and every
	// list nil, as a Go harness would send it.
	minConfig = SessionConfig{Model: ModelSpec{Name: "fake-1", Pricing: Pricing{Currency: "USD", Free: true}}}
)

func examples() []example {
	return []example{
		// initialize
		{MethodInitialize, PartParams, "full", InitializeParams{ProtocolVersions: []string{Version, "conform.wire/v0"}, Harness: Peer{Name: "conform", Version: "0.1.0"}}},
		{MethodInitialize, PartParams, "minimal", InitializeParams{ProtocolVersions: []string{Version}}},
		{MethodInitialize, PartResult, "full", InitializeResult{
			ProtocolVersion: Version, Kernel: Peer{Name: "refkernel", Version: "0.1.0"},
			Capabilities: []string{"bound.max_cost_usd", "bound.max_wall_clock_s", "cost.weighted_tokens", "bound.soft_limits",
				"done.terminal_tool", "doomloop.model_check", "hooks.concurrent_observe", "hooks.third_party_veto",
				"plan.batched_ask", "plan.circuit_breaker", "subagents.history_fork", "errors.tool_crash_result",
				"errors.crash_breaker", "profile.deterministic_first"},
			Readings: map[string]string{
				"doom_loop.default_threshold": "3", "doom_loop.status": StatusErrorMaxTurns,
				"circuit_breaker.status": StatusErrorMaxTurns, "hooks.transform_abort_status": StatusFailed,
				"max_depth.default": "1", "subagents.max_concurrent.default": "4",
				"retry.session_max_retries.default": "20", "depth.meaning": "tree",
				"vendor.extra_reading": "anything",
			},
		}},
		{MethodInitialize, PartResult, "minimal", InitializeResult{ProtocolVersion: Version}},
		{MethodInitialize, PartResult, "empty capabilities", InitializeResult{ProtocolVersion: Version, Capabilities: []string{}}},

		// session/run
		{MethodSessionRun, PartParams, "full", RunParams{SessionID: "root-1", Prompt: "Summarise a.txt", Config: fullConfig}},
		{MethodSessionRun, PartParams, "minimal", RunParams{SessionID: "root-1", Config: minConfig}},
		{MethodSessionRun, PartParams, "empty lists", RunParams{SessionID: "root-1", Config: SessionConfig{
			Hooks: Hooks{Subscribers: []Subscriber{}}, Policy: Policy{Rules: []PolicyRule{}},
			Model: ModelSpec{Pricing: Pricing{Tiers: []PricingTier{}}}, Tools: []ToolSchema{},
		}}},
		{MethodSessionRun, PartResult, "full", RunSessionResult{SessionID: "root-1", Status: StatusErrorMaxTurns, FinalMessage: &finalText,
			TotalCostUSD: 1.2, TotalInputTokens: 1200000, TotalOutputTokens: 3000, Turns: 4, Error: "max_turns reached"}},
		{MethodSessionRun, PartResult, "minimal", RunSessionResult{SessionID: "root-1", Status: StatusCompleted}},

		// session/cancel
		{MethodSessionCancel, PartParams, "full", CancelParams{SessionID: "root-1"}},
		{MethodSessionCancel, PartParams, "minimal", CancelParams{SessionID: "r"}},
		{MethodSessionCancel, PartResult, "full", Empty{}},
		{MethodSessionCancel, PartResult, "minimal", nil},

		// session/spawn
		{MethodSessionSpawn, PartParams, "full", SpawnParams{ParentSessionID: "root-1", CallID: "call-9", Profile: "researcher", Prompt: "Find X",
			RemainingDepth: ptr(5), RemainingCostBudgetUSD: ptr(10.0), ScopedProviders: []string{"fs", "web"}}},
		{MethodSessionSpawn, PartParams, "exhausted budgets", SpawnParams{ParentSessionID: "root-1", CallID: "call-9",
			RemainingDepth: ptr(0), RemainingCostBudgetUSD: ptr(-0.25)}},
		{MethodSessionSpawn, PartParams, "minimal", SpawnParams{ParentSessionID: "root-1", CallID: "call-9"}},
		{MethodSessionSpawn, PartResult, "full", RunSessionResult{SessionID: "root-1/c1", Status: StatusCancelled, FinalMessage: &Message{Role: "assistant"},
			TotalCostUSD: 0.3, TotalInputTokens: 10, TotalOutputTokens: 20, Turns: 1}},
		{MethodSessionSpawn, PartResult, "minimal", RunSessionResult{SessionID: "root-1/c1", Status: StatusFailed, Error: "boom"}},

		// session/continue
		{MethodSessionContinue, PartParams, "full", ContinueParams{SessionID: "root-1", Message: "Please continue."}},
		{MethodSessionContinue, PartParams, "minimal", ContinueParams{SessionID: "root-1"}},
		{MethodSessionContinue, PartResult, "full", Empty{}},
		{MethodSessionContinue, PartResult, "minimal", nil},

		// frontend/decide
		{MethodFrontendDecide, PartParams, "full", FrontendDecideParams{SessionID: "root-1", Connection: "second", Decisions: []PlanDecision{
			{PlanItemID: "pi-1", Decision: DecisionDeny, Scope: ScopeOnce},
			{PlanItemID: "pi-2", Decision: DecisionAllow, Scope: ScopeSession, CorrectedInput: raw(`{"path":"b.txt"}`)},
		}, InteractiveResponses: []InteractiveResponse{{CallID: "call-4", Response: "yes"}}}},
		{MethodFrontendDecide, PartParams, "interactive only", FrontendDecideParams{SessionID: "root-1", Connection: "second",
			InteractiveResponses: []InteractiveResponse{{CallID: "call-4", Response: ""}}}},
		{MethodFrontendDecide, PartParams, "minimal", FrontendDecideParams{SessionID: "root-1", Connection: "second"}},
		{MethodFrontendDecide, PartResult, "full", FrontendDecideResult{Results: []DecisionOutcome{
			{PlanItemID: "pi-1", Accepted: true},
			{PlanItemID: "pi-2", Category: FrontendErrInvalidClientEvent, Message: "pi-2 was already decided by connection primary"},
		}, InteractiveResults: []InteractiveOutcome{
			{CallID: "call-4", Accepted: true},
			{CallID: "call-5", Category: FrontendErrInvalidClientEvent, Message: "call-5 was already answered by connection primary"},
		}}},
		{MethodFrontendDecide, PartResult, "minimal", FrontendDecideResult{}},

		// shutdown
		{MethodShutdown, PartParams, "full", Empty{}},
		{MethodShutdown, PartParams, "minimal", nil},
		{MethodShutdown, PartResult, "full", Empty{}},
		{MethodShutdown, PartResult, "minimal", nil},

		// context/assemble
		{MethodContextAssemble, PartParams, "full", ContextAssembleParams{CallContext: fullCallContext, Turn: 3,
			History: []Message{{Role: "user", Content: []ContentBlock{{Type: BlockText, Text: "Summarise a.txt"}}}, assistantWithCall, toolResults}, Reduce: true}},
		{MethodContextAssemble, PartParams, "minimal", ContextAssembleParams{CallContext: minCallContext, Turn: 1}},
		{MethodContextAssemble, PartResult, "full", ContextAssembleResult{Contributions: []Contribution{{Source: "notes", Text: "marker-7"}, {Source: "notes", Text: ""}}}},
		{MethodContextAssemble, PartResult, "minimal", ContextAssembleResult{}},

		// hook/dispatch
		{MethodHookDispatch, PartParams, "full pre-model-call", HookDispatchParams{CallContext: fullCallContext, Point: PointPreModelCall, Subscriber: "tr-1",
			Mode: ModeTransform, TimeoutMS: 50, Payload: HookPayload{Variant: PointPreModelCall, Model: "fake-1",
				Messages: []Message{assistantWithCall, toolResults}, Tools: []ToolSpec{{Name: "read", Description: "Read a file", InputSchema: map[string]any{"type": "object"}}}}}},
		{MethodHookDispatch, PartParams, "full every payload field", HookDispatchParams{CallContext: fullCallContext, Point: PointPostModelResponse, Subscriber: "obs-1",
			Mode: ModeObserve, TimeoutMS: 500, Payload: HookPayload{
				Variant: PointPostModelResponse, SessionID: "root-1", Prompt: "p", Status: StatusRunning, FinalMessage: &finalText,
				Model: "fake-1", Messages: []Message{finalText}, Tools: []ToolSpec{{Name: "read"}},
				Message: &assistantWithCall, Usage: &fullUsage, CostUSD: ptr(0.406), StopReason: "tool_use",
				Error:  &ModelError{Category: ModelErrRateLimited, Message: "slow down", Retryable: true, RetryAfterMS: ptr[int64](200)},
				Call:   &ToolCall{ID: "call-1", Name: "read", Provider: "fs", Kind: KindDataSource, Input: raw(`{"path":"a.txt"}`)},
				Result: &ToolResult{Content: "boom", IsError: true, ErrorCategory: ToolErrProcessCrashed},
				Plan:   &Plan{Items: []PlanItem{fullPlanItem, minPlanItem}},
			}}},
		{MethodHookDispatch, PartParams, "session-start", HookDispatchParams{CallContext: minCallContext, Point: PointSessionStart, Subscriber: "obs-1", Mode: ModeObserve,
			Payload: HookPayload{Variant: PointSessionStart, SessionID: "root-1", Prompt: "Summarise a.txt"}}},
		{MethodHookDispatch, PartParams, "session-end", HookDispatchParams{CallContext: minCallContext, Point: PointSessionEnd, Subscriber: "obs-1", Mode: ModeObserve,
			Payload: HookPayload{Variant: PointSessionEnd, SessionID: "root-1", Status: StatusErrorMaxWallClock, FinalMessage: &finalText}}},
		{MethodHookDispatch, PartParams, "pre-tool-call", HookDispatchParams{CallContext: fullCallContext, Point: PointPreToolCall, Subscriber: "obs-1", Mode: ModeObserve,
			Payload: HookPayload{Variant: PointPreToolCall, Call: &ToolCall{ID: "call-1", Name: "read", Provider: "fs", Kind: KindDataSource}}}},
		{MethodHookDispatch, PartParams, "plan-ready", HookDispatchParams{CallContext: fullCallContext, Point: PointPlanReady, Subscriber: "veto-1", Mode: ModeVeto, TimeoutMS: 100,
			Payload: HookPayload{Variant: PointPlanReady, Plan: &Plan{Items: []PlanItem{fullPlanItem}}}}},
		{MethodHookDispatch, PartParams, "minimal", HookDispatchParams{CallContext: minCallContext, Point: PointPostApply, Subscriber: "obs-1", Mode: ModeObserve,
			Payload: HookPayload{Variant: PointPostApply, Plan: &Plan{}}}},
		{MethodHookDispatch, PartResult, "full transform", HookDispatchResult{Outcome: OutcomeTransform,
			Payload: &HookPayload{Variant: PointPreModelCall, Messages: []Message{{Role: "system", Content: []ContentBlock{{Type: BlockText, Text: "injected"}}}}}, Reason: "added a note"}},
		{MethodHookDispatch, PartResult, "full veto", HookDispatchResult{Outcome: OutcomeVeto, Decision: DecisionDeny, Reason: "not on Fridays"}},
		{MethodHookDispatch, PartResult, "veto unspecified", HookDispatchResult{Outcome: OutcomeVeto, Decision: DecisionUnspecified}},
		{MethodHookDispatch, PartResult, "minimal", HookDispatchResult{Outcome: OutcomeAck}},

		// model/stream
		{MethodModelStream, PartParams, "full", typicalModelStreamParams()},
		{MethodModelStream, PartParams, "final answer", ModelStreamParams{CallContext: fullCallContext, Purpose: PurposeFinalAnswer, Model: "fake-1",
			Messages: []Message{assistantWithCall, toolResults, {Role: "user", Content: []ContentBlock{{Type: BlockText, Text: "Limit reached: answer now without tools."}}}},
			Tools:    []ToolSpec{}, AssembledContext: []Contribution{}, Attempt: 1}},
		{MethodModelStream, PartParams, "minimal", ModelStreamParams{CallContext: minCallContext, Purpose: PurposeLoopCheck, Attempt: 1}},
		{MethodModelStream, PartResult, "full", ModelStreamResult{Events: []StreamEvent{
			{Type: EventTextDelta, Text: "Reading"},
			{Type: EventToolCall, ID: "call-1", Name: "read", Input: raw(`{"path":"a.txt"}`)},
			{Type: EventToolCall, ID: "call-2", Name: "read"},
			{Type: EventUsage, Usage: &fullUsage},
			{Type: EventStop, StopReason: "tool_use"},
		}}},
		{MethodModelStream, PartResult, "error", ModelStreamResult{Events: []StreamEvent{
			{Type: EventErrorSE, Error: &ModelError{Category: ModelErrContextLength, Message: "too long"}},
		}}},
		{MethodModelStream, PartResult, "minimal", ModelStreamResult{}},
		{MethodModelStream, PartResult, "bare stop", ModelStreamResult{Events: []StreamEvent{{Type: EventStop}}}},

		// tool/invoke
		{MethodToolInvoke, PartParams, "full", ToolInvokeParams{CallContext: fullCallContext, CallID: "call-1", Provider: "fs", Tool: "read", Input: raw(`{"path":"a.txt"}`), Attempt: 2}},
		{MethodToolInvoke, PartParams, "minimal", ToolInvokeParams{CallContext: minCallContext, CallID: "call-1", Attempt: 1}},
		{MethodToolInvoke, PartResult, "full", ToolInvokeResult{Output: raw(`{"error":"disk full"}`), IsError: true, ErrorCategory: ToolErrExecutionFailed, Retryable: true}},
		{MethodToolInvoke, PartResult, "string output", ToolInvokeResult{Output: raw(`"hello"`)}},
		{MethodToolInvoke, PartResult, "minimal", ToolInvokeResult{}},

		// tool/preview
		{MethodToolPreview, PartParams, "full", ToolPreviewParams{CallContext: fullCallContext, CallID: "call-3", Provider: "fs", Tool: "write", Input: raw(`{"path":"a.txt","text":"x"}`)}},
		{MethodToolPreview, PartParams, "minimal", ToolPreviewParams{CallContext: minCallContext, CallID: "call-3"}},
		{MethodToolPreview, PartResult, "full", ToolPreviewResult{Preview: "--- a.txt\n+++ a.txt\n+x"}},
		{MethodToolPreview, PartResult, "minimal", ToolPreviewResult{}},

		// frontend/permission
		{MethodFrontendPermission, PartParams, "full", PermissionParams{CallContext: fullCallContext, Items: []PlanItem{fullPlanItem, {
			ID: "pi-3", ToolCallID: "call-4", Provider: "fs", Tool: "rm", Kind: KindResource, Risk: "critical", Description: "Remove", Input: raw(`{}`), Decision: PolicyAsk, DecidedBy: "default"}}}},
		{MethodFrontendPermission, PartParams, "minimal", PermissionParams{CallContext: minCallContext}},
		{MethodFrontendPermission, PartResult, "full", PermissionResult{Decisions: []PlanDecision{
			{PlanItemID: "pi-1", Decision: DecisionAllow, Scope: ScopeSession, CorrectedInput: raw(`{"path":"b.txt","text":"x"}`)},
			{PlanItemID: "pi-3", Decision: DecisionDeny, Scope: ScopeOnce},
			{PlanItemID: "pi-4", Decision: DecisionAllow, Scope: ScopeAlways},
		}}},
		{MethodFrontendPermission, PartResult, "minimal", PermissionResult{}},

		// frontend/interactive
		{MethodFrontendInteractive, PartParams, "full", InteractiveParams{CallContext: fullCallContext, CallID: "call-5", ToolName: "ask_user", Prompt: "Which file?", Input: raw(`{"question":"Which file?"}`)}},
		{MethodFrontendInteractive, PartParams, "minimal", InteractiveParams{CallContext: minCallContext, CallID: "call-5"}},
		{MethodFrontendInteractive, PartResult, "full", InteractiveResult{Response: "a.txt"}},
		{MethodFrontendInteractive, PartResult, "minimal", InteractiveResult{}},

		// trace/span
		{NotifyTraceSpan, PartParams, "full", Span{TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7", ParentSpanID: "00f067aa0ba902b6",
			Name: "agent.turn", Role: RoleTurn, SessionID: "root-1", TurnID: "root-1/t1", StartUnixNano: 1700000000000000000, EndUnixNano: 1700000000500000000,
			Attributes: map[string]any{RoleAttribute: RoleTurn, "turn.number": 1, "tool.count": 3.0}}},
		{NotifyTraceSpan, PartParams, "minimal", Span{TraceID: "t", SpanID: "s", SessionID: "root-1"}},

		// cost/usage
		{NotifyCostUsage, PartParams, "full", CostUsage{SessionID: "root-1", TurnID: "root-1/t1", Model: "fake-1", Usage: fullUsage,
			CostUSD: 0.406, SessionTotalUSD: 0.812, TierIndex: 1, WeightedTokens: ptr(404800.0)}},
		{NotifyCostUsage, PartParams, "minimal", CostUsage{SessionID: "root-1"}},

		// session/meta
		{NotifySessionMeta, PartParams, "full", SessionMeta{SessionID: "root-1/c1", ParentSessionID: "root-1", Profile: "researcher", Depth: 1,
			RemainingDepth: ptr(0), RemainingCostBudgetUSD: ptr(0.7), Status: StatusCompleted, StartedAt: "2025-01-02T03:04:05Z",
			EndedAt: "2025-01-02T03:04:06.5Z", FinalMessage: &finalText}},
		{NotifySessionMeta, PartParams, "minimal", SessionMeta{SessionID: "root-1", Status: StatusRunning}},

		// event
		{NotifyEvent, PartParams, "full", Event{SessionID: "root-1", TurnID: "root-1/t2", Kind: EventHookError, Producer: "kernel",
			Payload: map[string]any{"subscriber": "tr-1", "point": PointPreModelCall, "category": HookErrTimeout}}},
		{NotifyEvent, PartParams, "kernel-defined kind", Event{SessionID: "root-1", Kind: "vendor_specific_thing", Producer: "refkernel"}},
		{NotifyEvent, PartParams, "minimal", Event{SessionID: "root-1", Kind: EventLog}},

		// $/cancelRequest
		{NotifyCancelRequest, PartParams, "full", CancelRequestParams{ID: raw(`"k-17"`)}},
		{NotifyCancelRequest, PartParams, "minimal", CancelRequestParams{ID: raw(`17`)}},

		// deterministic-first profile (capability profile.deterministic_first)
		{MethodSessionRun, PartParams, "full deterministic-first", RunParams{SessionID: "root-1", Prompt: "Where is my order?", Config: dfConfig()}},
		{MethodSessionRun, PartResult, "full deterministic-first", RunSessionResult{SessionID: "root-1", Status: StatusCancelled, Turns: 1,
			DeterministicFirst: &DFState{Memory: map[string]json.RawMessage{"order_id": raw(`"A-17"`), "shipped": raw(`true`)}, ActiveSkill: "orders",
				CallRecords: []DFCallRecord{{CallID: "call-1-1", Tool: "lookup", Origin: OriginModel}, {CallID: "step-1", Tool: "notify", Origin: OriginStep, Block: "after-lookup"}}}}},
		{MethodSessionRun, PartResult, "deterministic-first nothing recorded", RunSessionResult{SessionID: "root-1", Status: StatusCompleted, DeterministicFirst: &DFState{}}},
		{MethodModelStream, PartParams, "full deterministic-first", ModelStreamParams{CallContext: fullCallContext, Purpose: PurposeTurn, Model: "fake-1",
			Tools: []ToolSpec{{Name: "lookup", Description: "Look an order up"}}, AssembledContext: []Contribution{}, Attempt: 1,
			Skills: []SkillSpec{{Name: "orders", Description: "Order questions"}, {Name: "faq"}}, ActiveSkill: "faq"}},
		{MethodModelStream, PartResult, "skill switch", ModelStreamResult{Events: []StreamEvent{{Type: EventSkillSwitchSE, Name: "orders"}, {Type: EventStop, StopReason: "end_turn"}}}},
		{MethodMemoryWrite, PartParams, "full", MemoryWriteParams{SessionID: "root-1", CallID: "call-1-1", Values: map[string]json.RawMessage{"shipped": raw(`true`), "eta": raw(`{"days":2}`)}}},
		{MethodMemoryWrite, PartParams, "minimal", MemoryWriteParams{SessionID: "root-1", CallID: "call-1-1"}},
		{MethodMemoryWrite, PartResult, "full", Empty{}},
		{MethodMemoryWrite, PartResult, "minimal", nil},
		{MethodFrontendConfirm, PartParams, "full", ConfirmParams{CallContext: fullCallContext, CallID: "call-2-1", Tool: "refund", Input: raw(`{"amount":20}`), Prompt: "Refund 20 USD?"}},
		{MethodFrontendConfirm, PartParams, "minimal", ConfirmParams{CallContext: minCallContext, CallID: "step-2"}},
		{MethodFrontendConfirm, PartResult, "full", ConfirmResult{Confirmed: true}},
		{MethodFrontendConfirm, PartResult, "minimal", ConfirmResult{}},
	}
}

// dfConfig is a config using every part of the deterministic-first profile.
func dfConfig() SessionConfig {
	cfg := minConfig
	cfg.Tools = []ToolSchema{
		{Provider: "shop", Name: "lookup", Description: "Look an order up", Kind: KindDataSource, Risk: "low"},
		{Provider: "shop", Name: "refund", Description: "Refund an order", Kind: KindResource, Risk: "high"},
		{Provider: "shop", Name: "notify", Description: "Tell the customer", Kind: KindResource, Risk: "low"},
	}
	cfg.DeterministicFirst = &DFConfig{
		Memory: map[string]json.RawMessage{"order_id": raw(`"A-17"`), "attempts": raw(`0`)},
		Tools: []DFToolGate{
			{Tool: "refund", Requires: []DFCondition{{Key: "verified"}, {Key: "amount", Op: OpLe, Value: raw(`100`)}}, RequiresConfirmation: true},
			{Tool: "notify"},
		},
		Blocks: []DFBlock{
			{Name: "after-lookup", Steps: []DFStep{
				{Type: StepCollect, Key: "order_id", Text: "Which order?"},
				{Type: StepExecuteTool, Tool: "lookup", Input: raw(`{"id":"A-17"}`)},
				{Type: StepSetMemory, Key: "looked_up", Value: raw(`true`)},
				{Type: StepNoop},
				{Type: StepAction, Text: "Your order is on its way."},
				{Type: StepModel},
			}},
			{Name: "empty", Steps: nil},
		},
		Skills: []DFSkill{
			{Name: "orders", Description: "Order questions"},
			{Name: "refunds", Description: "Refunds", Requires: []DFCondition{{Key: "verified", Op: OpEq, Value: raw(`true`)}}},
		},
		ActiveSkill: "orders",
	}
	return cfg
}

// typicalModelStreamParams is a mid-session completion request: three turns
// of history, two tools, one context contribution.
func typicalModelStreamParams() ModelStreamParams {
	return ModelStreamParams{
		CallContext: fullCallContext,
		Purpose:     PurposeTurn,
		Model:       "fake-1",
		Messages: []Message{
			{Role: "system", Content: []ContentBlock{{Type: BlockText, Text: "You are a careful assistant."}}},
			{Role: "user", Content: []ContentBlock{{Type: BlockText, Text: "Summarise a.txt and b.txt, then write the summary to c.txt."}}},
			assistantWithCall, toolResults,
			{Role: "assistant", Content: []ContentBlock{{Type: BlockToolUse, ID: "call-3", Name: "write", Input: raw(`{"path":"c.txt","text":"summary"}`)}}},
			{Role: "user", Content: []ContentBlock{{Type: BlockToolResult, ToolUseID: "call-3", Content: "ok"}}},
		},
		Tools: []ToolSpec{
			{Name: "read", Description: "Read a file", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}}},
			{Name: "write", Description: "Write a file", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}, "text": map[string]any{"type": "string"}}}},
		},
		AssembledContext: []Contribution{{Source: "notes", Text: "marker-3"}},
		Attempt:          1,
	}
}

func TestExamplesValidate(t *testing.T) {
	for _, ex := range examples() {
		b, err := json.Marshal(ex.value)
		if err != nil {
			t.Fatalf("%s %s %s: marshal: %v", ex.method, ex.part, ex.name, err)
		}
		if err := Validate(ex.method, ex.part, b); err != nil {
			t.Errorf("%s %s (%s) rejected: %v\n%s", ex.method, ex.part, ex.name, err, b)
		}
	}
}

// TestExamplesCoverEveryPart makes sure no message part goes without a full
// and a minimal example.
func TestExamplesCoverEveryPart(t *testing.T) {
	seen := map[string]map[string]bool{}
	for _, ex := range examples() {
		k := ex.method + " " + ex.part
		if seen[k] == nil {
			seen[k] = map[string]bool{}
		}
		switch {
		case ex.name == "minimal":
			seen[k]["minimal"] = true
		case len(ex.name) >= 4 && ex.name[:4] == "full":
			seen[k]["full"] = true
		}
	}
	for _, m := range Methods() {
		parts := []string{PartParams, PartResult}
		if IsNotification(m) {
			parts = parts[:1]
		}
		for _, p := range parts {
			k := m + " " + p
			if !seen[k]["full"] || !seen[k]["minimal"] {
				t.Errorf("%s: want a full and a minimal example, have %v", k, seen[k])
			}
		}
	}
}
