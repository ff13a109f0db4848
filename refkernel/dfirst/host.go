package dfirst

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/spec/wire"
)

// Confirmer is a host that can ask the user to confirm a call
// (frontend/confirm). The wire server's host is one; a host that is not
// cannot confirm, and calls that need a confirmation never run.
type Confirmer interface {
	Confirm(ctx context.Context, p wire.ConfirmParams) (wire.ConfirmResult, error)
}

// Gated wraps a session's host so that every tool/invoke passes the
// dispatch gate of the run's Session first (DF-03): the model's calls come
// through Invoke, a step's calls through the Env's Dispatch. Every other
// method is the wrapped host's.
type Gated struct {
	host.Host
	rt      Session
	confirm func(ctx context.Context, p wire.ConfirmParams) (wire.ConfirmResult, error)

	mu       sync.Mutex
	switched map[string]bool // turn id → its reply switched skills
}

// NewGated wraps h. confirm is the host that answers frontend/confirm (the
// session's original host, which h may wrap); nil or a host that cannot
// confirm means no call needing confirmation ever runs.
func NewGated(h host.Host, rt Session, confirm host.Host) *Gated {
	g := &Gated{Host: h, rt: rt}
	if c, ok := confirm.(Confirmer); ok {
		g.confirm = c.Confirm
	}
	return g
}

// Invoke implements host.Host for the model's calls. A call the gate
// refuses is answered here, without reaching the tool, with an error
// result; the tool's own answer, or failure, passes through unchanged.
func (g *Gated) Invoke(ctx context.Context, p wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
	c := Call{ID: p.CallID, Tool: p.Tool, Provider: p.Provider, Input: p.Input, Origin: wire.OriginModel}
	d, err := g.dispatch(ctx, g.Env(p.CallContext, nil), c, p)
	if err != nil || d.Ran {
		return d.Result, err
	}
	return Refusal(c.Tool, d.Verdict), nil
}

// Env is the environment of a pass or a dispatch whose requests carry cc.
// callID names the calls of execute_tool steps.
func (g *Gated) Env(cc wire.CallContext, callID func() string) Env {
	env := Env{CallContext: cc, Confirm: g.confirm, CallID: callID}
	env.Dispatch = func(ctx context.Context, c Call) (Dispatched, error) {
		return g.dispatch(ctx, env, c, wire.ToolInvokeParams{
			CallContext: cc, CallID: c.ID, Provider: c.Provider, Tool: c.Tool, Input: c.Input, Attempt: 1,
		})
	}
	return env
}

func (g *Gated) dispatch(ctx context.Context, env Env, c Call, p wire.ToolInvokeParams) (Dispatched, error) {
	v, err := g.rt.Admit(ctx, env, c)
	if err != nil || v != Allow {
		return Dispatched{Verdict: v}, err
	}
	g.rt.Begin(c)
	res, err := g.Host.Invoke(ctx, p)
	g.rt.Finish(c, err == nil)
	return Dispatched{Verdict: Allow, Ran: true, Result: res}, err
}

// Refusal is the result of a call the gate refused.
func Refusal(tool string, v Verdict) wire.ToolInvokeResult {
	msg := "the tool " + tool + " is not available now: its requires condition does not hold"
	if v == Declined {
		msg = "the user did not confirm the call to " + tool + ", so it did not run"
	}
	out, _ := json.Marshal(msg)
	return wire.ToolInvokeResult{Output: out, IsError: true, ErrorCategory: wire.ToolErrPermissionDenied}
}

// Stream implements host.Host: it sees every reply of the model first.
// Each skill_switch event is handed to the Session, which accepts it only
// for a skill eligible now (DF-06), and is reported as an event; any reply
// to an ordinary turn request completes the model steps the blocks wait
// at.
func (g *Gated) Stream(ctx context.Context, p wire.ModelStreamParams) (wire.ModelStreamResult, error) {
	res, err := g.Host.Stream(ctx, p)
	if err != nil || p.Purpose != wire.PurposeTurn {
		return res, err
	}
	switched, failed := false, false
	for _, e := range res.Events {
		switch e.Type {
		case wire.EventSkillSwitchSE:
			switched = true
			ok := g.rt.Switch(e.Name)
			host.Emit(g.Host, p.CallContext.SessionID, p.CallContext.TurnID, wire.EventSkillSwitch, host.KernelProducer,
				map[string]any{"skill": e.Name, "accepted": ok})
		case wire.EventErrorSE:
			failed = true
		}
	}
	if failed {
		return res, nil
	}
	g.rt.ModelAnswered()
	if switched {
		g.mu.Lock()
		if g.switched == nil {
			g.switched = map[string]bool{}
		}
		g.switched[p.CallContext.TurnID] = true
		g.mu.Unlock()
	}
	return res, nil
}

// Switched reports whether the reply of the turn switched skills; a reply
// that did is no final answer (PROTOCOL.md §17.3).
func (g *Gated) Switched(turnID string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	ok := g.switched[turnID]
	delete(g.switched, turnID)
	return ok
}
