// The messages of conform.wire/v1 (spec/PROTOCOL.md) as TypeScript types.
// Each type names the JSON Schema it mirrors with an @schema tag;
// nodekit_test.go holds every tagged type against its schema (the same
// fields, the same required ones, the same enum values), so these types
// cannot drift from spec/wire/schemas. Arrays are `T[] | null` where the
// protocol lets null stand for empty or absent.

export type JSONValue = null | boolean | number | string | JSONValue[] | { [key: string]: JSONValue };
export type JSONObject = { [key: string]: JSONValue };

/** @schema defs.json#/$defs/Status */
export type Status = "running" | "completed" | "error_max_turns" | "error_max_budget_usd" | "error_max_wall_clock" | "cancelled" | "failed";
/** @schema defs.json#/$defs/TerminalStatus */
export type TerminalStatus = "completed" | "error_max_turns" | "error_max_budget_usd" | "error_max_wall_clock" | "cancelled" | "failed";
/** @schema defs.json#/$defs/HookPoint */
export type HookPoint = "session-start" | "context-assemble" | "pre-model-call" | "post-model-response" | "pre-tool-call" | "plan-ready" | "post-tool-call" | "post-apply" | "session-end";
/** @schema defs.json#/$defs/HookMode */
export type HookMode = "observe" | "transform" | "veto";
/** @schema defs.json#/$defs/HookDecision */
export type HookDecision = "ALLOW" | "DENY" | "UNSPECIFIED";
/** @schema defs.json#/$defs/HookOutcome */
export type HookOutcome = "ack" | "transform" | "veto";
/** @schema defs.json#/$defs/PolicyDecision */
export type PolicyDecision = "allow" | "ask" | "deny";
/** @schema defs.json#/$defs/ToolKind */
export type ToolKind = "data_source" | "resource" | "interactive";
/** @schema defs.json#/$defs/ToolErrorCategory */
export type ToolErrorCategory = "invalid_arguments" | "not_found" | "permission_denied" | "execution_failed" | "timeout" | "concurrency_conflict" | "cancelled" | "process_crashed" | "unknown";
/** @schema defs.json#/$defs/ModelErrorCategory */
export type ModelErrorCategory = "context_length_exceeded" | "rate_limited" | "overloaded" | "auth_error" | "invalid_request" | "content_filtered" | "unknown";
/** @schema defs.json#/$defs/Purpose */
export type Purpose = "turn" | "final_answer" | "loop_check";
/** @schema defs.json#/$defs/Scope */
export type Scope = "ONCE" | "SESSION" | "ALWAYS";
/** @schema defs.json#/$defs/StreamEventType */
export type StreamEventType = "text_delta" | "tool_call" | "usage" | "stop" | "error" | "skill_switch";
/** @schema defs.json#/$defs/MessageRole */
export type MessageRole = "user" | "assistant" | "system";
/** @schema defs.json#/$defs/SpanRole */
export type SpanRole = "session" | "turn" | "model_call" | "tool_execution" | "policy_chain" | "hook_dispatch" | "hook_subscriber" | "";
/** @schema defs.json#/$defs/BlockType */
export type BlockType = "text" | "tool_use" | "tool_result";

/** @schema defs.json#/$defs/Peer */
export interface Peer { name: string; version: string }
/** @schema defs.json#/$defs/GlueNote */
export interface GlueNote { requirement: string; reason: string }
/** @schema defs.json#/$defs/CallContext */
export interface CallContext { session_id: string; turn_id: string; working_directory: string }
/** @schema defs.json#/$defs/ContentBlock */
export interface ContentBlock {
  type: BlockType; text?: string; id?: string; name?: string; input?: JSONObject;
  tool_use_id?: string; content?: string; is_error?: boolean; error_category?: ToolErrorCategory;
}
/** @schema defs.json#/$defs/Message */
export interface Message { role: MessageRole; content: ContentBlock[] | null }
/** @schema defs.json#/$defs/Contribution */
export interface Contribution { source: string; text: string }
/** @schema defs.json#/$defs/ToolSpec */
export interface ToolSpec { name: string; description: string; input_schema?: JSONObject }
/** @schema defs.json#/$defs/Usage */
export interface Usage { input_tokens: number; output_tokens: number; cache_read_tokens?: number; cache_write_tokens?: number; reasoning_tokens?: number }
/** @schema defs.json#/$defs/ModelError */
export interface ModelError { category: ModelErrorCategory; message: string; retryable: boolean; retry_after_ms?: number }
/** @schema defs.json#/$defs/StreamEvent */
export interface StreamEvent {
  type: StreamEventType; text?: string; id?: string; name?: string; input?: JSONObject;
  usage?: Usage; stop_reason?: string; error?: ModelError;
}
/** @schema defs.json#/$defs/PlanItem */
export interface PlanItem {
  id: string; tool_call_id: string; provider: string; tool: string; kind: ToolKind; risk: string;
  description: string; preview?: string; input: JSONObject | null; decision: PolicyDecision | ""; decided_by: string;
}
/** @schema defs.json#/$defs/Plan */
export interface Plan { items: PlanItem[] | null }
/** @schema defs.json#/$defs/PlanDecision */
export interface PlanDecision { plan_item_id: string; decision: HookDecision; scope?: Scope; corrected_input?: JSONObject }
/** @schema defs.json#/$defs/ToolCall */
export interface ToolCall { id: string; name: string; provider: string; kind: ToolKind; input: JSONObject | null }
/** @schema defs.json#/$defs/ToolResult */
export interface ToolResult { content: string; is_error?: boolean; error_category?: ToolErrorCategory }
/** @schema defs.json#/$defs/HookPayload */
export interface HookPayload {
  variant: HookPoint; session_id?: string; prompt?: string; status?: Status; final_message?: Message;
  model?: string; messages?: Message[] | null; tools?: ToolSpec[] | null; message?: Message; usage?: Usage;
  cost_usd?: number; stop_reason?: string; error?: ModelError; call?: ToolCall; result?: ToolResult; plan?: Plan;
}
/** @schema defs.json#/$defs/RunSessionResult */
export interface RunSessionResult {
  session_id: string; status: Status; final_message?: Message; total_cost_usd: number; total_input_tokens: number;
  total_output_tokens: number; turns: number; error?: string; deterministic_first?: DFState;
}
/** @schema defs.json#/$defs/TokenWeights */
export interface TokenWeights { sampling_token_weight: number; prefill_token_weight: number; max_weighted_tokens: number }
/** @schema defs.json#/$defs/Bounds */
export interface Bounds { max_turns?: number; max_cost_usd?: number; max_wall_clock_s?: number; soft?: boolean; weights?: TokenWeights }
/** @schema defs.json#/$defs/DoomLoop */
export interface DoomLoop { threshold?: number; window_size?: number; model_check_window?: number }
/** @schema defs.json#/$defs/Subscriber */
export interface Subscriber { id: string; point: HookPoint; mode: HookMode; timeout_ms?: number; supported_points?: HookPoint[] | null; third_party?: boolean }
/** @schema defs.json#/$defs/Hooks */
export interface Hooks { default_timeout_ms: number; subscribers: Subscriber[] | null }
/** @schema defs.json#/$defs/PolicyRule */
export interface PolicyRule { name: string; provider?: string; tool?: string; kind?: ToolKind; decision: PolicyDecision }
/** @schema defs.json#/$defs/CircuitBreaker */
export interface CircuitBreaker { consecutive: number; window?: number; window_max?: number }
/** @schema defs.json#/$defs/Policy */
export interface Policy { rules: PolicyRule[] | null; circuit_breaker?: CircuitBreaker; persist_always?: boolean }
/** @schema defs.json#/$defs/ChildProfile */
export interface ChildProfile { name: string; tools: string[] | null; max_depth?: number; max_cost_usd?: number; max_turns?: number; fork_parent_history?: boolean }
/** @schema defs.json#/$defs/Subagents */
export interface Subagents { max_concurrent: number; max_depth: number; profiles: ChildProfile[] | null }
/** @schema defs.json#/$defs/Retry */
export interface Retry { base_delay_ms?: number; backoff_factor?: number; max_retries?: number; session_max_retries?: number }
/** @schema defs.json#/$defs/ContextConfig */
export interface ContextConfig { providers: string[] | null }
/** @schema defs.json#/$defs/PricingTier */
export interface PricingTier {
  effective_from?: string; effective_until?: string; input_tokens_from?: number; input_tokens_until?: number;
  input_per_mtok: number; output_per_mtok: number; cache_read_per_mtok?: number; cache_write_per_mtok?: number;
}
/** @schema defs.json#/$defs/Pricing */
export interface Pricing { currency: string; free?: boolean; tiers: PricingTier[] | null }
/** @schema defs.json#/$defs/ModelSpec */
export interface ModelSpec { name: string; supports_tool_use: boolean; supports_parallel_tool_calls: boolean; caching_supported?: boolean; pricing: Pricing; fallbacks?: string[] | null }
/** @schema defs.json#/$defs/ConcurrencySpec */
export interface ConcurrencySpec { safe: boolean; key_fields?: string[] | null }
/** @schema defs.json#/$defs/ToolSchema */
export interface ToolSchema {
  provider: string; name: string; description: string; kind: ToolKind; risk: string; input_schema?: JSONObject;
  output_schema?: JSONObject; concurrency?: ConcurrencySpec; idempotent?: boolean; terminates_turn?: boolean;
  spawn_capable?: boolean; has_preview?: boolean;
}
/** @schema defs.json#/$defs/SessionConfig */
export interface SessionConfig {
  profile: string; working_directory: string; bounds: Bounds; doom_loop?: DoomLoop; hooks: Hooks; policy: Policy;
  plan_mode?: boolean; subagents?: Subagents; retry?: Retry; telemetry: boolean; model: ModelSpec;
  tools: ToolSchema[] | null; context?: ContextConfig; deterministic_first?: DFConfig;
}
/** @schema defs.json#/$defs/DFStepType */
export type DFStepType = "execute_tool" | "set_memory" | "noop" | "action" | "collect" | "model";
/** @schema defs.json#/$defs/DFOp */
export type DFOp = "truthy" | "eq" | "ne" | "gt" | "ge" | "lt" | "le";
/** @schema defs.json#/$defs/DFOrigin */
export type DFOrigin = "model" | "step";
/** @schema defs.json#/$defs/DFCondition */
export interface DFCondition { key: string; op?: DFOp; value?: JSONValue }
/** @schema defs.json#/$defs/DFToolGate */
export interface DFToolGate { tool: string; requires?: DFCondition[] | null; requires_confirmation?: boolean }
/** @schema defs.json#/$defs/DFStep */
export interface DFStep { type: DFStepType; tool?: string; input?: JSONObject; key?: string; value?: JSONValue; text?: string }
/** @schema defs.json#/$defs/DFBlock */
export interface DFBlock { name: string; steps: DFStep[] | null }
/** @schema defs.json#/$defs/DFSkill */
export interface DFSkill { name: string; description: string; requires?: DFCondition[] | null }
/** @schema defs.json#/$defs/DFConfig */
export interface DFConfig { memory?: JSONObject; tools?: DFToolGate[] | null; blocks?: DFBlock[] | null; skills?: DFSkill[] | null; active_skill?: string }
/** @schema defs.json#/$defs/SkillSpec */
export interface SkillSpec { name: string; description: string }
/** @schema defs.json#/$defs/DFCallRecord */
export interface DFCallRecord { call_id: string; tool: string; origin: DFOrigin; block?: string }
/** @schema defs.json#/$defs/DFState */
export interface DFState { memory: JSONObject | null; call_records: DFCallRecord[] | null; active_skill?: string }
/** @schema defs.json#/$defs/Readings */
export interface Readings {
  "doom_loop.default_threshold"?: string; "doom_loop.status"?: TerminalStatus; "doom_loop.model_check_counts"?: string;
  "circuit_breaker.status"?: TerminalStatus;
  "hooks.transform_abort_status"?: TerminalStatus; "max_depth.default"?: string; "subagents.max_concurrent.default"?: string;
  "retry.session_max_retries.default"?: string; "retry.jitter_min_ratio"?: string; "retry.jitter_max_ratio"?: string;
  "retry.added_delay_ms"?: string; "model_error.status"?: TerminalStatus; "errors.max_reductions"?: string; "errors.tool_retries"?: string;
  "depth.meaning"?: "tree" | "remaining";
  "concurrency.undeclared_data_source"?: string; "hooks.policy_deny_ends_chain"?: string; "hooks.veto_points"?: string;
  "hooks.transforms"?: "applied" | "observe_only"; "hooks.transform_history"?: string; "plan.refused_decision"?: string; "plan.preview_timeout_ms"?: string; "plan.max_asks"?: string;
  "errors.crash_breaker.count"?: string; "bound.soft_resume"?: string; "df.reopen_history"?: string;
  "bound.zero"?: string; "hooks.zero_timeout"?: string; "doom_loop.number_identity"?: string;
  "trace.child_sessions"?: string;
}

// ---- the message parts, one per schema file --------------------------------

/** @schema initialize.params.json */
export interface InitializeParams { protocol_versions: string[]; harness: Peer }
/** @schema initialize.result.json */
export interface InitializeResult { protocol_version: "conform.wire/v1"; kernel: Peer; capabilities: string[] | null; readings?: Readings; glue?: GlueNote[] }
/** @schema session.run.params.json */
export interface RunParams { session_id: string; prompt: string; config: SessionConfig }
/** @schema session.cancel.params.json */
export interface CancelParams { session_id: string }
/** @schema session.continue.params.json */
export interface ContinueParams { session_id: string; message: string }
/** @schema session.spawn.params.json */
export interface SpawnParams {
  parent_session_id: string; call_id: string; profile: string; prompt: string; remaining_depth?: number;
  remaining_cost_budget_usd?: number; scoped_providers?: string[] | null;
}
/** @schema frontend.decide.params.json */
export interface DecideParams { session_id: string; connection: string; decisions: PlanDecision[] | null; interactive_responses?: { call_id: string; response: string }[] | null }
/** @schema frontend.decide.result.json */
export interface DecideResult {
  results: { plan_item_id: string; accepted: boolean; category?: string; message?: string }[] | null;
  interactive_results?: { call_id: string; accepted: boolean; category?: string; message?: string }[] | null;
}
/** @schema memory.write.params.json */
export interface MemoryWriteParams { session_id: string; call_id: string; values: JSONObject | null }
/** @schema context.assemble.params.json */
export interface AssembleParams { call_context: CallContext; turn: number; history: Message[] | null; reduce?: boolean }
/** @schema context.assemble.result.json */
export interface AssembleResult { contributions: Contribution[] | null }
/** @schema hook.dispatch.params.json */
export interface HookParams { call_context: CallContext; point: HookPoint; subscriber: string; mode: HookMode; timeout_ms: number; payload: HookPayload }
/** @schema hook.dispatch.result.json */
export interface HookResult { outcome: HookOutcome; payload?: HookPayload; decision?: HookDecision; reason?: string }
/** @schema model.stream.params.json */
export interface StreamParams {
  call_context: CallContext; purpose: Purpose; model: string; messages: Message[] | null; tools: ToolSpec[] | null;
  assembled_context: Contribution[] | null; attempt: number; skills?: SkillSpec[] | null; active_skill?: string;
}
/** @schema model.stream.result.json */
export interface StreamResult { events: StreamEvent[] | null }
/** @schema tool.invoke.params.json */
export interface InvokeParams { call_context: CallContext; call_id: string; provider: string; tool: string; input: JSONObject | null; attempt: number }
/** @schema tool.invoke.result.json */
export interface InvokeResult { output: JSONValue; is_error?: boolean; error_category?: ToolErrorCategory; retryable?: boolean }
/** @schema tool.preview.params.json */
export interface PreviewParams { call_context: CallContext; call_id: string; provider: string; tool: string; input: JSONObject | null }
/** @schema tool.preview.result.json */
export interface PreviewResult { preview: string }
/** @schema frontend.permission.params.json */
export interface PermissionParams { call_context: CallContext; items: PlanItem[] | null }
/** @schema frontend.permission.result.json */
export interface PermissionResult { decisions: PlanDecision[] | null }
/** @schema frontend.interactive.params.json */
export interface InteractiveParams { call_context: CallContext; call_id: string; tool_name: string; prompt: string; input: JSONObject | null }
/** @schema frontend.interactive.result.json */
export interface InteractiveResult { response: string }
/** @schema frontend.confirm.params.json */
export interface ConfirmParams { call_context: CallContext; call_id: string; tool: string; input: JSONObject | null; prompt: string }
/** @schema frontend.confirm.result.json */
export interface ConfirmResult { confirmed: boolean }
/** @schema trace.span.params.json */
export interface Span {
  trace_id: string; span_id: string; parent_span_id?: string; name: string; role: SpanRole; session_id: string;
  turn_id?: string; start_unix_nano: number; end_unix_nano: number; attributes?: JSONObject;
}
/** @schema cost.usage.params.json */
export interface CostUsage {
  session_id: string; turn_id: string; model: string; usage: Usage; cost_usd: number; session_total_usd: number;
  tier_index: number; weighted_tokens?: number;
}
/** @schema session.meta.params.json */
export interface MetaRow {
  session_id: string; parent_session_id?: string; profile: string; depth: number; remaining_depth?: number;
  remaining_cost_budget_usd?: number; status: Status; started_at: string; ended_at?: string; final_message?: Message;
}
/** @schema event.params.json */
export interface Event { session_id: string; turn_id?: string; kind: string; producer: string; payload?: JSONObject }
/** @schema cancelRequest.params.json */
export interface CancelRequestParams { id: string | number }
