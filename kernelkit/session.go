package kernelkit

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/agentconform/conform/kernelkit/outschema"
	"github.com/agentconform/conform/refkernel/cost"
	"github.com/agentconform/conform/spec/wire"
)

// Producer is the producer of the events a kernel reports on its own
// behalf; a hook_error event names the failing subscriber instead (HD-14).
const Producer = "kernel"

// Session carries the protocol duties of one session that every kernel
// has, so that an adapter writes only its loop: the session/meta rows and
// the session hooks (Start, Finish), turns and their context/assemble
// (Begin, NewTurn), hook chains (Dispatch), pricing and cost/usage
// (Charge), and the totals of the result. Each helper does exactly what
// its documentation says and nothing the loop did not ask for; an adapter
// that wraps a framework uses only the ones that match what the framework
// does, and calls the Host directly for the rest.
type Session struct {
	Host   *Host
	ID     string
	Prompt string
	Config wire.SessionConfig
	// Now is the clock of the rows and of pricing; time.Now by default.
	Now func() time.Time

	mu      sync.Mutex
	outputs map[string]*outschema.Schema // compiled on first use; nil until then
	badOut  error                        // why the output schemas did not compile
	started time.Time
	turns   int
	costUSD float64
	in, out int64
}

// NewSession starts the helpers of one session/run. It sends nothing.
func NewSession(h *Host, p wire.RunParams) *Session {
	return &Session{Host: h, ID: p.SessionID, Prompt: p.Prompt, Config: p.Config, Now: time.Now}
}

// CallContext is the call_context of a request of the turn turnID (""
// outside a turn).
func (s *Session) CallContext(turnID string) wire.CallContext {
	return wire.CallContext{SessionID: s.ID, TurnID: turnID, WorkingDirectory: s.Config.WorkingDirectory}
}

// Tool is the config's schema of the tool named name.
func (s *Session) Tool(name string) (wire.ToolSchema, bool) {
	for _, t := range s.Config.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return wire.ToolSchema{}, false
}

// CheckOutput checks a tool's output against the tool's output_schema, as
// the reference kernel does (kernelkit/outschema: JSON Schema 2020-12, an
// absent output checked as null); a tool without one accepts anything. The
// schemas are compiled once, on first use; one that does not compile makes
// every output of the session's tools fail with the reason.
func (s *Session) CheckOutput(tool string, out json.RawMessage) error {
	s.mu.Lock()
	if s.outputs == nil && s.badOut == nil {
		s.outputs, s.badOut = outschema.Compile(s.Config.Tools)
	}
	sch, bad := s.outputs[tool], s.badOut
	s.mu.Unlock()
	if bad != nil {
		return bad
	}
	return sch.Check(out)
}

// ToolSpecs are the specs of every tool of the config, as a model request
// offers them.
func (s *Session) ToolSpecs() []wire.ToolSpec {
	out := []wire.ToolSpec{}
	for _, t := range s.Config.Tools {
		out = append(out, wire.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	return out
}

// Start sends the session's running row (session/meta) and dispatches its
// session-start hooks. Its error is a session-start transform chain that
// was aborted, or the connection's end.
func (s *Session) Start(ctx context.Context) error {
	s.mu.Lock()
	s.started = s.Now()
	s.mu.Unlock()
	s.Host.Meta(s.row(wire.StatusRunning, nil))
	_, err := s.Dispatch(ctx, "", wire.HookPayload{Variant: wire.PointSessionStart, SessionID: s.ID, Prompt: s.Prompt})
	return err
}

// Finish ends the session: its session-end hooks (even when ctx is
// cancelled), its end row, and the result with the totals Charge counted
// and the turns Begin counted. why, when not nil, is the result's error
// (for a failed session).
func (s *Session) Finish(ctx context.Context, status string, final *wire.Message, why error) wire.RunSessionResult {
	ctx = context.WithoutCancel(ctx)
	_, _ = s.Dispatch(ctx, "", wire.HookPayload{Variant: wire.PointSessionEnd, SessionID: s.ID, Status: status, FinalMessage: final})
	end := s.row(status, final)
	end.EndedAt = s.Now().UTC().Format(time.RFC3339Nano)
	s.Host.Meta(end)
	s.mu.Lock()
	defer s.mu.Unlock()
	res := wire.RunSessionResult{
		SessionID: s.ID, Status: status, FinalMessage: final, TotalCostUSD: s.costUSD,
		TotalInputTokens: s.in, TotalOutputTokens: s.out, Turns: s.turns,
	}
	if why != nil {
		res.Error = why.Error()
	}
	return res
}

func (s *Session) row(status string, final *wire.Message) wire.SessionMeta {
	s.mu.Lock()
	started := s.started
	s.mu.Unlock()
	if started.IsZero() {
		started = s.Now()
	}
	return wire.SessionMeta{
		SessionID: s.ID, Profile: s.Config.Profile, Depth: 0, Status: status,
		StartedAt: started.UTC().Format(time.RFC3339Nano), FinalMessage: final,
	}
}

// Event reports one event of the session on the kernel's behalf.
func (s *Session) Event(turnID, kind string, payload map[string]any) {
	s.Host.Event(wire.Event{SessionID: s.ID, TurnID: turnID, Kind: kind, Producer: Producer, Payload: payload})
}

// Charge prices one usage event by the model's pricing (the tier that
// matches its input tokens and the time now, PROTOCOL.md §8.2), reports it
// with cost/usage, and counts it in the session's totals. An event no tier
// prices is an error and is not counted.
func (s *Session) Charge(turnID string, u wire.Usage) (float64, error) {
	c, err := cost.Standard{}.Cost(s.Config.Model.Pricing, u, s.Now())
	if err != nil {
		return 0, fmt.Errorf("pricing a usage event: %w", err)
	}
	s.mu.Lock()
	s.costUSD += c.USD
	s.in += u.InputTokens
	s.out += u.OutputTokens
	total := s.costUSD
	s.mu.Unlock()
	s.Host.Cost(wire.CostUsage{
		SessionID: s.ID, TurnID: turnID, Model: s.Config.Model.Name, Usage: u,
		CostUSD: c.USD, SessionTotalUSD: total, TierIndex: c.Tier,
	})
	return c.USD, nil
}

// Spent is the session's cost so far.
func (s *Session) Spent() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.costUSD
}

// Begin starts the next turn without sending anything: the turn's number
// and its own turn_id. A loop with a context step then calls
// Turn.Assemble; NewTurn does both.
func (s *Session) Begin() *Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns++
	return &Turn{S: s, N: s.turns, ID: fmt.Sprintf("%s/t%d", s.ID, s.turns)}
}

// NewTurn starts the next turn with its step 1, context/assemble, on the
// history so far.
func (s *Session) NewTurn(ctx context.Context, history []wire.Message) (*Turn, error) {
	t := s.Begin()
	return t, t.Assemble(ctx, history)
}
