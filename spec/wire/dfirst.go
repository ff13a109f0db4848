package wire

import "encoding/json"

// The deterministic-first profile (capability profile.deterministic_first,
// requirements DF-01…DF-10, PROTOCOL.md §17). Every field and message here is
// optional: a session whose config has no deterministic_first block runs
// exactly as before, and a kernel without the capability never sees them.

// Methods of the deterministic-first profile.
const (
	// MethodMemoryWrite (harness → kernel): a tool that is running writes
	// session memory. It is sent while that tool's tool/invoke is in flight.
	MethodMemoryWrite = "memory/write"
	// MethodFrontendConfirm (kernel → harness): ask the user to confirm a
	// call to a tool with requires_confirmation before it runs.
	MethodFrontendConfirm = "frontend/confirm"
)

// Block step types.
const (
	StepExecuteTool = "execute_tool"
	StepSetMemory   = "set_memory"
	StepNoop        = "noop"
	StepAction      = "action"
	StepCollect     = "collect"
	StepModel       = "model"
)

// Condition operators; the empty operator is OpTruthy.
const (
	OpTruthy = "truthy"
	OpEq     = "eq"
	OpNe     = "ne"
	OpGt     = "gt"
	OpGe     = "ge"
	OpLt     = "lt"
	OpLe     = "le"
)

// Call record origins.
const (
	OriginModel = "model"
	OriginStep  = "step"
)

// EventSkillSwitch is the event a deterministic-first kernel reports for
// each skill switch the model asked for, accepted or refused.
const EventSkillSwitch = "skill_switch"

// EventSkillSwitchSE is the model stream event that switches skills; Name
// carries the skill.
const EventSkillSwitchSE = "skill_switch"

// DFConfig is the deterministic-first part of a session config.
type DFConfig struct {
	// Memory holds the initial values of session memory (key → any JSON).
	Memory map[string]json.RawMessage `json:"memory,omitempty"`
	// Tools gates the session's tools (by ToolSchema.name); a tool with no
	// entry is ungated.
	Tools []DFToolGate `json:"tools,omitempty"`
	// Blocks are the ordered blocks of steps, all active from the start.
	Blocks []DFBlock `json:"blocks,omitempty"`
	// Skills are the skills the model may route to.
	Skills []DFSkill `json:"skills,omitempty"`
	// ActiveSkill is the skill active when the session starts.
	ActiveSkill string `json:"active_skill,omitempty"`
}

// DFCondition is one clause of a requires list: the memory value at Key
// compared by Op with Value. A requires list holds when every clause does.
type DFCondition struct {
	Key   string          `json:"key"`
	Op    string          `json:"op,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
}

// DFToolGate is the gate of one tool.
type DFToolGate struct {
	Tool                 string        `json:"tool"`
	Requires             []DFCondition `json:"requires,omitempty"`
	RequiresConfirmation bool          `json:"requires_confirmation,omitempty"`
}

// DFBlock is one ordered block of steps.
type DFBlock struct {
	Name  string   `json:"name"`
	Steps []DFStep `json:"steps"`
}

// DFStep is one step of a block. Which fields are set depends on Type:
// execute_tool (Tool, Input), set_memory (Key, Value), noop, action (Text),
// collect (Key, Text), model.
type DFStep struct {
	Type  string          `json:"type"`
	Tool  string          `json:"tool,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
	Key   string          `json:"key,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
	Text  string          `json:"text,omitempty"`
}

// DFSkill is one skill and its eligibility condition.
type DFSkill struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Requires    []DFCondition `json:"requires,omitempty"`
}

// SkillSpec is what the model is offered for one routable skill.
type SkillSpec struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// DFState is the deterministic-first part of a RunSessionResult: the
// session's memory when the run ended and the calls the run recorded.
type DFState struct {
	Memory      map[string]json.RawMessage `json:"memory"`
	CallRecords []DFCallRecord             `json:"call_records"`
	ActiveSkill string                     `json:"active_skill,omitempty"`
}

// DFCallRecord is one tool call the run recorded as done.
type DFCallRecord struct {
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
	Origin string `json:"origin"`
	Block  string `json:"block,omitempty"`
}

// MemoryWriteParams is a running tool's write to session memory.
type MemoryWriteParams struct {
	SessionID string                     `json:"session_id"`
	CallID    string                     `json:"call_id"`
	Values    map[string]json.RawMessage `json:"values"`
}

// ConfirmParams asks the user to confirm one call before it runs.
type ConfirmParams struct {
	CallContext CallContext     `json:"call_context"`
	CallID      string          `json:"call_id"`
	Tool        string          `json:"tool"`
	Input       json.RawMessage `json:"input"`
	Prompt      string          `json:"prompt"`
}

// ConfirmResult is the user's answer.
type ConfirmResult struct {
	Confirmed bool `json:"confirmed"`
}
