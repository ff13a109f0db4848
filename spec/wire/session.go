package wire

import "encoding/json"

// InitializeParams opens the conversation. The harness lists the protocol
// versions it speaks, newest first.
type InitializeParams struct {
	ProtocolVersions []string `json:"protocol_versions"`
	Harness          Peer     `json:"harness"`
}

// Peer names one side of the conversation.
type Peer struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// InitializeResult is the kernel's answer: the version chosen, who it is, the
// optional capabilities it has (names from spec/requirements.json), and its
// readings of points the spec leaves open (keys from PROTOCOL.md, e.g.
// "doom_loop.status" or "doom_loop.default_threshold"), and the requirements
// whose verdict depends on its adapter's glue rather than on the loop under
// it (PROTOCOL.md §15): reports label those glue and count their failures
// apart from the loop's.
type InitializeResult struct {
	ProtocolVersion string            `json:"protocol_version"`
	Kernel          Peer              `json:"kernel"`
	Capabilities    []string          `json:"capabilities"`
	Readings        map[string]string `json:"readings,omitempty"`
	Glue            []GlueNote        `json:"glue,omitempty"`
}

// GlueNote names one requirement whose verdict depends on the adapter's glue
// and says what the glue does there.
type GlueNote struct {
	Requirement string `json:"requirement"`
	Reason      string `json:"reason"`
}

// RunParams starts a root session. The harness picks the root session id so
// that every later message can be attributed without guessing.
type RunParams struct {
	SessionID string        `json:"session_id"`
	Prompt    string        `json:"prompt"`
	Config    SessionConfig `json:"config"`
}

// RunSessionResult ends every session, root or child. Totals include all
// descendants.
type RunSessionResult struct {
	SessionID         string   `json:"session_id"`
	Status            string   `json:"status"`
	FinalMessage      *Message `json:"final_message,omitempty"`
	TotalCostUSD      float64  `json:"total_cost_usd"`
	TotalInputTokens  int64    `json:"total_input_tokens"`
	TotalOutputTokens int64    `json:"total_output_tokens"`
	Turns             int      `json:"turns"`
	Error             string   `json:"error,omitempty"`
	// DeterministicFirst is the run's memory and call records, for a
	// session run with the deterministic-first profile.
	DeterministicFirst *DFState `json:"deterministic_first,omitempty"`
}

// CancelParams cancels a session and, recursively, all its descendants.
type CancelParams struct {
	SessionID string `json:"session_id"`
}

// ContinueParams resumes a session paused by a soft limit (TA-09), as the user.
type ContinueParams struct {
	SessionID string `json:"session_id"`
	Message   string `json:"message"`
}

// SpawnParams is the RunSession callback a spawn-capable tool makes while its
// tool/invoke is in flight. The caller-supplied depth and budget are hints the
// kernel may only shrink (SA-10).
type SpawnParams struct {
	ParentSessionID        string   `json:"parent_session_id"`
	CallID                 string   `json:"call_id"`
	Profile                string   `json:"profile"`
	Prompt                 string   `json:"prompt"`
	RemainingDepth         *int     `json:"remaining_depth,omitempty"`
	RemainingCostBudgetUSD *float64 `json:"remaining_cost_budget_usd,omitempty"`
	ScopedProviders        []string `json:"scoped_providers,omitempty"`
}

// Empty is the result of methods that return nothing.
type Empty struct{}

// CancelRequestParams names a request the sender has given up on.
type CancelRequestParams struct {
	ID json.RawMessage `json:"id"`
}
