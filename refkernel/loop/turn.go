package loop

import (
	"context"
	"encoding/json"
	"fmt"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/trace"
	"github.com/agentconform/conform/spec/wire"
)

// Turn is the state one turn's steps share.
type Turn struct {
	Session     *Session
	Ctx         context.Context // carries the turn span
	Number      int             // 1-based; the final-answer turn counts too
	ID          string
	CallContext wire.CallContext
	// Final is set on the final-answer turn after a bound fired.
	Final *FinalTurn

	Contributions []wire.Contribution     // step 1
	Request       *wire.ModelStreamParams // step 2, after pre-model-call transforms
	Message       wire.Message            // steps 3-4: the assistant reply
	Usage         wire.Usage              // summed over the reply's usage events
	CostUSD       float64                 // the reply's cost
	StopReason    string
	ModelError    *wire.ModelError
	Plan          wire.Plan // step 10, decided at step 11

	// Done ends the session completed after this turn; End skips the
	// turn's remaining steps; Fired takes the limit-reached path.
	Done  bool
	End   bool
	Fired *bounds.Fired

	parent     context.Context
	calls      []*Call // see ToolCalls
	callsReady bool
	planCalls  []*Call // the owners of Plan.Items, index for index
}

// Call is one tool_use block and what became of it.
type Call struct {
	Use    wire.ContentBlock
	Schema *wire.ToolSchema // nil for a tool the session does not have
	Input  json.RawMessage  // what an apply runs with (a corrected input after an ask)
	// Allowed is set at step 11 for a resource cleared to apply.
	Allowed  bool
	Executed bool
	// fatal is an invoke failure the ToolErrs part declared fatal (see
	// errors.go); the reference part never does.
	fatal error
	// Result is set once the call is decided: executed, denied or failed.
	Result *wire.ToolResult
}

// Kind is the call's tool kind, empty for an unknown tool.
func (c *Call) Kind() string {
	if c.Schema == nil {
		return ""
	}
	return c.Schema.Kind
}

func (c *Call) wire() *wire.ToolCall {
	tc := &wire.ToolCall{ID: c.Use.ID, Name: c.Use.Name, Kind: c.Kind(), Input: c.Use.Input}
	if c.Schema != nil {
		tc.Provider = c.Schema.Provider
	}
	return tc
}

func (c *Call) deny(reason string) {
	c.Result = &wire.ToolResult{Content: reason, IsError: true, ErrorCategory: wire.ToolErrPermissionDenied}
}

// outcome is the call's result; a call no step decided (only possible with
// a reordered step list) is reported as not executed.
func (c *Call) outcome() wire.ToolResult {
	if c.Result == nil {
		c.Result = &wire.ToolResult{Content: "the call was not executed", IsError: true, ErrorCategory: wire.ToolErrUnknown}
	}
	return *c.Result
}

func (s *Session) newTurn(ctx context.Context, final *FinalTurn) *Turn {
	s.ran++
	id := s.ids("turn")
	return &Turn{
		Session:     s,
		parent:      ctx,
		Ctx:         ctx,
		Number:      s.ran,
		ID:          id,
		Final:       final,
		CallContext: wire.CallContext{SessionID: s.id, TurnID: id, WorkingDirectory: s.cfg.WorkingDirectory},
	}
}

// runTurn runs the steps in order under a turn span.
func (s *Session) runTurn(t *Turn) error {
	ctx, span := s.tracer.Start(t.parent, wire.RoleTurn, "turn", trace.Turn(t.ID),
		attribute.Int("conform.turn", t.Number), attribute.String("conform.purpose", t.purpose()))
	defer span.End()
	t.Ctx = ctx
	defer func() {
		if len(t.Message.Content) > 0 {
			msg := t.Message
			s.final = &msg
		}
	}()
	for _, st := range s.parts.Steps {
		if err := st.Run(t); err != nil {
			return fmt.Errorf("%s: %w", st.Name, err)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if t.End {
			break
		}
	}
	return nil
}

func (t *Turn) purpose() string {
	if t.Final != nil && !t.Final.Unlabelled {
		return wire.PurposeFinalAnswer
	}
	return wire.PurposeTurn
}

// ToolCalls lists the reply's tool_use blocks in message order. The list is
// built on first use, after the model step, and shared by every later step.
func (t *Turn) ToolCalls() []*Call {
	if t.callsReady {
		return t.calls
	}
	t.callsReady = true
	for _, b := range t.Message.Content {
		if b.Type != wire.BlockToolUse {
			continue
		}
		if len(b.Input) == 0 {
			b.Input = json.RawMessage("{}")
		}
		c := &Call{Use: b, Input: b.Input}
		if sch, ok := t.Session.tools[b.Name]; ok {
			c.Schema = &sch
		}
		t.calls = append(t.calls, c)
	}
	return t.calls
}

// requestMessages is the history plus, on the final-answer turn, the
// kernel's instruction.
func (t *Turn) requestMessages() []wire.Message {
	msgs := append([]wire.Message{}, t.Session.history...)
	if t.Final != nil && t.Final.Instruction != "" {
		msgs = append(msgs, textMessage("user", t.Final.Instruction))
	}
	return msgs
}

// requestTools is never nil: a withheld list is sent as [] (TA-20).
func (t *Turn) requestTools() []wire.ToolSpec {
	if t.Final != nil && t.Final.WithholdTools {
		return []wire.ToolSpec{}
	}
	return t.Session.dfOffered(t.Session.specs) // gated tools hidden (DF-02)
}
