package wire

// SessionConfig carries everything an agent.hcl profile would: bounds, doom
// loop, hooks, policy, plan mode, sub-agents, retry, telemetry, the model and
// the tools. Optional numbers are pointers so "unset" differs from zero.
type SessionConfig struct {
	Profile          string         `json:"profile"`
	WorkingDirectory string         `json:"working_directory"`
	Bounds           Bounds         `json:"bounds"`
	DoomLoop         *DoomLoop      `json:"doom_loop,omitempty"`
	Hooks            Hooks          `json:"hooks"`
	Policy           Policy         `json:"policy"`
	PlanMode         bool           `json:"plan_mode,omitempty"`
	Subagents        *Subagents     `json:"subagents,omitempty"`
	Retry            *Retry         `json:"retry,omitempty"`
	Telemetry        bool           `json:"telemetry"`
	Model            ModelSpec      `json:"model"`
	Tools            []ToolSchema   `json:"tools"`
	Context          *ContextConfig `json:"context,omitempty"`
	// DeterministicFirst configures the deterministic-first profile
	// (capability profile.deterministic_first); nil = not used.
	DeterministicFirst *DFConfig `json:"deterministic_first,omitempty"`
}

// Bounds are the three independent loop bounds. max_wall_clock_s is a number
// so that tests can use sub-second bounds.
type Bounds struct {
	MaxTurns      *int     `json:"max_turns,omitempty"`
	MaxCostUSD    *float64 `json:"max_cost_usd,omitempty"`
	MaxWallClockS *float64 `json:"max_wall_clock_s,omitempty"`
	// Soft makes max_turns/max_cost_usd pause for user continuation (TA-09)
	// instead of ending the session. Default false: hard.
	Soft bool `json:"soft,omitempty"`
	// Weights enable the weighted-token refinement of max_cost_usd (TA-05).
	Weights *TokenWeights `json:"weights,omitempty"`
}

// TokenWeights is the optional weighted-token refinement.
type TokenWeights struct {
	SamplingTokenWeight float64 `json:"sampling_token_weight"`
	PrefillTokenWeight  float64 `json:"prefill_token_weight"`
	MaxWeightedTokens   float64 `json:"max_weighted_tokens"`
}

// DoomLoop configures the kernel-owned detector; nil means kernel defaults.
type DoomLoop struct {
	Threshold  *int `json:"threshold,omitempty"`
	WindowSize *int `json:"window_size,omitempty"`
	// ModelCheckWindow enables the second-tier model check (TA-13) after
	// this many calls; 0 disables it.
	ModelCheckWindow int `json:"model_check_window,omitempty"`
}

// Hooks lists subscribers in declaration order, all points and modes mixed.
type Hooks struct {
	DefaultTimeoutMS int          `json:"default_timeout_ms"`
	Subscribers      []Subscriber `json:"subscribers"`
}

// Subscriber is one hook{} block.
type Subscriber struct {
	ID        string `json:"id"`
	Point     string `json:"point"`
	Mode      string `json:"mode"`
	TimeoutMS int    `json:"timeout_ms,omitempty"`
	// SupportedPoints is what the subscriber's plugin advertises; a
	// subscription at another point is refused at config load (HD-16).
	// Empty means every point.
	SupportedPoints []string `json:"supported_points,omitempty"`
	// ThirdParty marks a non-policy plugin declared as veto (HD-08).
	ThirdParty bool `json:"third_party,omitempty"`
}

// Policy holds ordered rules (first match wins) and the circuit breaker.
type Policy struct {
	Rules          []PolicyRule    `json:"rules"`
	CircuitBreaker *CircuitBreaker `json:"circuit_breaker,omitempty"`
	// PersistAlways says the kernel has a writable policy store for
	// ALWAYS-scoped decisions (PA-19).
	PersistAlways bool `json:"persist_always,omitempty"`
}

// PolicyRule matches on provider, tool and kind; empty fields match anything.
type PolicyRule struct {
	Name     string `json:"name"`
	Provider string `json:"provider,omitempty"`
	Tool     string `json:"tool,omitempty"`
	Kind     string `json:"kind,omitempty"`
	Decision string `json:"decision"`
}

// CircuitBreaker trips the limit-reached path after Consecutive denials in a
// row, or WindowMax denials within the last Window decisions.
type CircuitBreaker struct {
	Consecutive int `json:"consecutive"`
	Window      int `json:"window,omitempty"`
	WindowMax   int `json:"window_max,omitempty"`
}

// Subagents configures spawning.
type Subagents struct {
	MaxConcurrent int            `json:"max_concurrent"`
	MaxDepth      int            `json:"max_depth"`
	Profiles      []ChildProfile `json:"profiles"`
}

// ChildProfile is a sub-agent profile a spawn may name.
type ChildProfile struct {
	Name              string   `json:"name"`
	Tools             []string `json:"tools"`
	MaxDepth          *int     `json:"max_depth,omitempty"`
	MaxCostUSD        *float64 `json:"max_cost_usd,omitempty"`
	MaxTurns          *int     `json:"max_turns,omitempty"`
	ForkParentHistory bool     `json:"fork_parent_history,omitempty"`
}

// Retry configures model-error retries. When present all three base fields
// must be set (ER-05).
type Retry struct {
	BaseDelayMS       *int     `json:"base_delay_ms,omitempty"`
	BackoffFactor     *float64 `json:"backoff_factor,omitempty"`
	MaxRetries        *int     `json:"max_retries,omitempty"`
	SessionMaxRetries *int     `json:"session_max_retries,omitempty"`
}

// ContextConfig names the context providers the harness plays. It is
// informational: context/assemble is sent in every turn whether or not the
// config has it (PROTOCOL.md §7.1).
type ContextConfig struct {
	Providers []string `json:"providers"`
}

// ModelSpec is the model the session uses, as its provider advertises it.
type ModelSpec struct {
	Name                      string  `json:"name"`
	SupportsToolUse           bool    `json:"supports_tool_use"`
	SupportsParallelToolCalls bool    `json:"supports_parallel_tool_calls"`
	CachingSupported          bool    `json:"caching_supported,omitempty"`
	Pricing                   Pricing `json:"pricing"`
	// Fallbacks are other models the kernel could route to (ER-07).
	Fallbacks []string `json:"fallbacks,omitempty"`
}

// Pricing is the model's declared price list.
type Pricing struct {
	Currency string        `json:"currency"`
	Free     bool          `json:"free,omitempty"`
	Tiers    []PricingTier `json:"tiers"`
}

// PricingTier applies when effective_from <= t < effective_until and
// input_tokens_from <= n < input_tokens_until; absent bounds are open.
// Times are RFC 3339.
type PricingTier struct {
	EffectiveFrom     string   `json:"effective_from,omitempty"`
	EffectiveUntil    string   `json:"effective_until,omitempty"`
	InputTokensFrom   *int64   `json:"input_tokens_from,omitempty"`
	InputTokensUntil  *int64   `json:"input_tokens_until,omitempty"`
	InputPerMtok      float64  `json:"input_per_mtok"`
	OutputPerMtok     float64  `json:"output_per_mtok"`
	CacheReadPerMtok  *float64 `json:"cache_read_per_mtok,omitempty"`
	CacheWritePerMtok *float64 `json:"cache_write_per_mtok,omitempty"`
}

// ToolSchema is one operation a fake tool provider offers.
type ToolSchema struct {
	Provider     string           `json:"provider"`
	Name         string           `json:"name"`
	Description  string           `json:"description"`
	Kind         string           `json:"kind"`
	Risk         string           `json:"risk"`
	InputSchema  map[string]any   `json:"input_schema,omitempty"`
	OutputSchema map[string]any   `json:"output_schema,omitempty"`
	Concurrency  *ConcurrencySpec `json:"concurrency,omitempty"`
	Idempotent   bool             `json:"idempotent,omitempty"`
	// TerminatesTurn: a call to this resource ends the loop after its
	// post-tool-call hook (TA-27).
	TerminatesTurn bool `json:"terminates_turn,omitempty"`
	// SpawnCapable: the invoke calls session/spawn (SA-*).
	SpawnCapable bool `json:"spawn_capable,omitempty"`
	// HasPreview: the provider implements tool/preview (PA-11, PA-12).
	HasPreview bool `json:"has_preview,omitempty"`
}

// ConcurrencySpec is the tool's declaration of what may run beside it.
type ConcurrencySpec struct {
	Safe      bool     `json:"safe"`
	KeyFields []string `json:"key_fields,omitempty"`
}
