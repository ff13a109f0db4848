package model

// Faults break the reference model provider one rule at a time. The zero
// value breaks nothing.
type Faults struct {
	// Declarations.
	DescribeWrongCategory bool // Describe says category tool (MP-02)
	CapabilitiesDrift     bool // every GetCapabilities answers a new context_window (MP-03)
	NoConfigSchema        bool // Capabilities carry no ConfigSchema, and Configure takes anything (MP-04)
	MaxOutputZero         bool // batch-1 declares max_output_tokens 0 (MP-05)
	ThinkingNoDefault     bool // echo-1's ThinkingSpec has no default (MP-06)
	CachingModeNone       bool // batch-1 declares caching supported with mode none (MP-07)
	NoPricing             bool // batch-1 carries no Pricing (MP-08)
	TierGap               bool // echo-1's large-input tier starts 1 token late (MP-09)
	UnspecifiedHookPoint  bool // supported_hook_points holds HOOK_POINT_UNSPECIFIED (MP-34)
	HooksUnserved         bool // hook points declared, HookSubscriberService not served (MP-34)
	ParallelUndeclared    bool // echo-1 leaves supports_parallel_tool_calls unset (MP-28)

	// StreamCompletion.
	NoText                bool // echo-1 answers a text prompt with a stop alone (MP-10)
	EventAfterStop        bool // a usage event follows the stop (MP-11)
	StopUnspecified       bool // batch-1 stops with STOP_REASON_UNSPECIFIED (MP-12)
	IgnoreStopSequences   bool // stop sequences are echoed like any word (MP-13)
	EmptyErrorMessage     bool // in-band errors carry no message (MP-14)
	UnknownCode           bool // an unknown model is refused with gRPC code Unknown (MP-15)
	NoRawDetail           bool // errors carry no raw vendor detail (MP-16)
	BadToolArguments      bool // tool-call fragments do not join into JSON (MP-19)
	RejectToolResult      bool // a conversation with a tool_result is refused (MP-20)
	ImageDropped          bool // batch-1 ignores an image instead of refusing it (MP-21)
	DocumentDropped       bool // batch-1 ignores a document instead of refusing it (MP-22)
	ThinkingFromFree      bool // free-1 sends a thinking_delta (MP-23)
	RejectMaxBudget       bool // batch-1 refuses a budget at the top of its range (MP-24)
	RejectThinkingHistory bool // a conversation carrying a thinking block is refused (MP-25)
	BreakpointsOnImplicit bool // batch-1 refuses cache breakpoints (MP-26)
	ToolChoiceNoneIgnored bool // tool choice none still calls a tool (MP-27)
	ParallelFromFree      bool // free-1 (no parallel calls) calls two tools at once (MP-28)
	NegativeUsage         bool // usage reports output_tokens -1 (MP-31)
	CacheUsageFromNoCache bool // free-1 reports cache_read_tokens (MP-31)
	ReasoningInOutput     bool // reasoning tokens are also counted in output_tokens (MP-32)
	CrashOnCancel         bool // the process exits when a completion is cancelled (MP-33)
	HangOnLongPrompt      bool // a completion of a long prompt never ends (MP-11, MP-33: hung stream)

	// Configure, secrets, Render, CountTokens.
	ConfigureAcceptsMissing bool // Configure without api_key succeeds (MP-17)
	SecretInVendorError     bool // an error's raw vendor body quotes the api key (MP-18)
	SecretInLog             bool // the Log callback carries the api key (MP-18)
	RenderFails             bool // Render answers an internal error (MP-29)
	CountZero               bool // CountTokens answers 0 for any text (MP-30)
}

// Readings are legal variants of the reference: other correct readings of
// the protocol, or slower; a variant must pass every row.
type Readings struct {
	// StatusRefusals refuses what a model does not serve with a gRPC status
	// carrying the ModelError, not an in-band error event.
	StatusRefusals bool
	// Slow yields between stream events (a backend that streams at its own
	// pace).
	Slow bool
	// LogFlood writes 200 lines to stderr and 20 log entries per
	// completion: noisy, but no rule forbids it.
	LogFlood bool
}
