package dfirst

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/agentconform/conform/spec/wire"
)

// Profile is the swappable deterministic-first part of the kernel.
type Profile interface {
	// Validate checks a session's deterministic_first block against the
	// session's tools before the session starts.
	Validate(cfg wire.DFConfig, tools []wire.ToolSchema) error
	// Open starts one run of a session. prior is what the session's
	// earlier runs left (PROTOCOL.md §17.8), nil on the first run.
	Open(cfg wire.DFConfig, tools []wire.ToolSchema, prior *State) Session
}

// Session is the profile's state during one run. The loop calls it at its
// seams; the calls may come from several goroutines (parallel tool calls,
// memory writes arriving from the wire).
type Session interface {
	// Pass runs every determined step of every block (DF-01, DF-10). It
	// makes no model request.
	Pass(ctx context.Context, env Env) (Outcome, error)
	// Offered keeps the tool specs whose gate holds now (DF-02, DF-04).
	Offered(specs []wire.ToolSpec) []wire.ToolSpec
	// Routing sets the skills and the active skill of a model request
	// (DF-06).
	Routing(req *wire.ModelStreamParams)
	// Admit is the dispatch gate of one call, whoever started it (DF-03,
	// DF-05). It may ask the user to confirm; its error is the context's
	// when the run was cancelled meanwhile.
	Admit(ctx context.Context, env Env, c Call) (Verdict, error)
	// Switch handles a skill switch the model asked for and reports
	// whether it was accepted (DF-06).
	Switch(skill string) bool
	// ModelAnswered completes the model steps the blocks wait at.
	ModelAnswered()
	// Write commits memory a running tool wrote (DF-08, DF-10).
	Write(callID string, values map[string]json.RawMessage) error
	// Begin and Finish bracket a call that passed the gate; completed says
	// whether the tool answered. Only a completed call is recorded (DF-09).
	Begin(c Call)
	Finish(c Call, completed bool)
	// Close ends the run: the state the next run starts from, and the
	// result's deterministic_first block.
	Close() (State, wire.DFState)
}

// Env is what the loop lends the profile for one pass or one dispatch.
type Env struct {
	// CallContext attributes the requests made now (turn_id is empty
	// during a pass).
	CallContext wire.CallContext
	// Dispatch runs a step's call through the dispatch gate (Gated).
	Dispatch func(ctx context.Context, c Call) (Dispatched, error)
	// Confirm asks the user (frontend/confirm); nil when the host cannot,
	// and then a call that needs confirmation never runs.
	Confirm func(ctx context.Context, p wire.ConfirmParams) (wire.ConfirmResult, error)
	// CallID names the call of an execute_tool step.
	CallID func() string
}

// Call is one tool call at the dispatch gate.
type Call struct {
	ID       string
	Tool     string
	Provider string
	Input    json.RawMessage
	Origin   string // wire.OriginModel or wire.OriginStep
	Block    string // the block of a step's call
}

// Verdict is what the dispatch gate decided.
type Verdict int

const (
	// Allow: the call runs.
	Allow Verdict = iota
	// Closed: the gate's condition does not hold; a step waits.
	Closed
	// Declined: the user did not confirm, or could not be asked.
	Declined
)

func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Closed:
		return "closed"
	}
	return "declined"
}

// Dispatched is the outcome of a call at the gate.
type Dispatched struct {
	Verdict Verdict
	Ran     bool // the tool was invoked
	Result  wire.ToolInvokeResult
}

// Outcome is what a pass did.
type Outcome struct {
	// Responses are the texts of the action steps that ran, in order.
	Responses []string
	// End: the framework answered the user and no block waits for the
	// model, so the run ends without a model request (PROTOCOL.md §17.3).
	End bool
}

// State is what a run leaves to the next run of the same session.
type State struct {
	Memory      map[string]json.RawMessage
	Positions   []int // each block's position, by index
	ActiveSkill string
}

// ErrNotInFlight refuses a memory write for a call that is not running.
var ErrNotInFlight = errors.New("no tool call with this id is in flight in the session")

// Standard is the reference profile. Eval is its condition evaluator; nil
// means FailClosed.
type Standard struct {
	Eval Evaluator
}

// Validate implements Profile.
func (Standard) Validate(cfg wire.DFConfig, tools []wire.ToolSchema) error {
	return validate(cfg, tools)
}

// Open implements Profile.
func (p Standard) Open(cfg wire.DFConfig, tools []wire.ToolSchema, prior *State) Session {
	eval := p.Eval
	if eval == nil {
		eval = FailClosed{}
	}
	return open(eval, cfg, tools, prior)
}
