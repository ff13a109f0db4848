package dfirst

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/agentconform/conform/spec/wire"
)

// session is the reference Session. mu guards the memory, the positions,
// the active skill and the call bookkeeping; no lock is held while a call
// or a confirmation is in flight.
type session struct {
	eval   Evaluator
	blocks []wire.DFBlock
	skills []wire.DFSkill
	gates  map[string]wire.DFToolGate
	tools  map[string]wire.ToolSchema

	mu       sync.Mutex
	mem      map[string]json.RawMessage
	pos      []int
	active   string
	inflight map[string]Call
	records  []wire.DFCallRecord
}

func open(eval Evaluator, cfg wire.DFConfig, tools []wire.ToolSchema, prior *State) *session {
	s := &session{
		eval:     eval,
		blocks:   cfg.Blocks,
		skills:   cfg.Skills,
		gates:    map[string]wire.DFToolGate{},
		tools:    map[string]wire.ToolSchema{},
		mem:      maps.Clone(cfg.Memory),
		pos:      make([]int, len(cfg.Blocks)),
		active:   cfg.ActiveSkill,
		inflight: map[string]Call{},
	}
	for _, g := range cfg.Tools {
		s.gates[g.Tool] = g
	}
	for _, t := range tools {
		s.tools[t.Name] = t
	}
	if prior != nil {
		s.mem = maps.Clone(prior.Memory)
		copy(s.pos, prior.Positions)
		s.active = prior.ActiveSkill
	}
	if s.mem == nil {
		s.mem = map[string]json.RawMessage{}
	}
	return s
}

// holds evaluates a requires list on the memory as it is now.
func (s *session) holds(conds []wire.DFCondition) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.eval.Holds(conds, s.mem)
}

// gateOpen: an ungated tool is always open.
func (s *session) gateOpen(tool string) bool {
	g, ok := s.gates[tool]
	return !ok || s.holds(g.Requires)
}

// Pass implements Session: it sweeps the blocks, each from its position,
// until a sweep moves none of them, so that a step one block runs can
// unblock another block's step within the same pass.
func (s *session) Pass(ctx context.Context, env Env) (Outcome, error) {
	var out Outcome
	for moved := true; moved; {
		moved = false
		for b := range s.blocks {
			for {
				if err := ctx.Err(); err != nil {
					return out, err
				}
				st, ok := s.current(b)
				if !ok {
					break
				}
				done, err := s.run(ctx, env, b, st, &out)
				if err != nil {
					return out, err
				}
				if !done {
					break
				}
				s.advance(b)
				moved = true
			}
		}
	}
	out.End = len(out.Responses) > 0 && !s.waitsForModel()
	return out, nil
}

// current is block b's next step, if it has one left.
func (s *session) current(b int) (wire.DFStep, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pos[b] >= len(s.blocks[b].Steps) {
		return wire.DFStep{}, false
	}
	return s.blocks[b].Steps[s.pos[b]], true
}

func (s *session) advance(b int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pos[b]++
}

// run performs one step if it is determined, and reports whether it is
// done. A step that is not determined leaves its block waiting.
func (s *session) run(ctx context.Context, env Env, b int, st wire.DFStep, out *Outcome) (bool, error) {
	switch st.Type {
	case wire.StepNoop:
		return true, nil
	case wire.StepSetMemory:
		s.mu.Lock()
		s.mem[st.Key] = st.Value
		s.mu.Unlock()
		return true, nil
	case wire.StepAction:
		out.Responses = append(out.Responses, st.Text)
		return true, nil
	case wire.StepCollect:
		s.mu.Lock()
		v, ok := s.mem[st.Key]
		s.mu.Unlock()
		return ok && string(v) != "null", nil
	case wire.StepExecuteTool:
		in := st.Input
		if len(in) == 0 {
			in = json.RawMessage("{}")
		}
		c := Call{ID: env.CallID(), Tool: st.Tool, Provider: s.tools[st.Tool].Provider, Input: in,
			Origin: wire.OriginStep, Block: s.blocks[b].Name}
		d, err := env.Dispatch(ctx, c)
		if err != nil && ctx.Err() != nil {
			// Cancelled in flight: the step has not run, and runs
			// again in the next run (DF-09).
			return false, ctx.Err()
		}
		// A closed gate parks the block; a declined call or a tool that
		// answered (even with an error, even by crashing) is done.
		return d.Verdict != Closed, nil
	}
	// model (and anything validation let through): the model decides.
	return false, nil
}

// waitsForModel reports whether some block waits at a model step.
func (s *session) waitsForModel() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for b, blk := range s.blocks {
		if s.pos[b] < len(blk.Steps) && blk.Steps[s.pos[b]].Type == wire.StepModel {
			return true
		}
	}
	return false
}

// Offered implements Session.
func (s *session) Offered(specs []wire.ToolSpec) []wire.ToolSpec {
	out := make([]wire.ToolSpec, 0, len(specs))
	for _, sp := range specs {
		if s.gateOpen(sp.Name) {
			out = append(out, sp)
		}
	}
	return out
}

// Routing implements Session: the eligible skills, in declaration order.
func (s *session) Routing(req *wire.ModelStreamParams) {
	req.Skills = nil
	for _, sk := range s.skills {
		if s.holds(sk.Requires) {
			req.Skills = append(req.Skills, wire.SkillSpec{Name: sk.Name, Description: sk.Description})
		}
	}
	s.mu.Lock()
	req.ActiveSkill = s.active
	s.mu.Unlock()
}

// Admit implements Session. The gate is checked first; a confirmation is
// asked only for a call whose gate is open, and the gate is checked again
// once the user has answered, since memory may have changed meanwhile.
func (s *session) Admit(ctx context.Context, env Env, c Call) (Verdict, error) {
	g, gated := s.gates[c.Tool]
	if !gated {
		return Allow, nil
	}
	if !s.holds(g.Requires) {
		return Closed, nil
	}
	if !g.RequiresConfirmation {
		return Allow, nil
	}
	if env.Confirm == nil {
		return Declined, nil
	}
	res, err := env.Confirm(ctx, wire.ConfirmParams{
		CallContext: env.CallContext, CallID: c.ID, Tool: c.Tool, Input: c.Input,
		Prompt: fmt.Sprintf("Run %s with %s?", c.Tool, string(c.Input)),
	})
	switch {
	case err != nil && ctx.Err() != nil:
		return Declined, ctx.Err()
	case err != nil || !res.Confirmed:
		return Declined, nil
	case !s.holds(g.Requires):
		return Closed, nil
	}
	return Allow, nil
}

// Switch implements Session: only a skill eligible now can become active.
func (s *session) Switch(skill string) bool {
	i := slices.IndexFunc(s.skills, func(sk wire.DFSkill) bool { return sk.Name == skill })
	if i < 0 || !s.holds(s.skills[i].Requires) {
		return false
	}
	s.mu.Lock()
	s.active = skill
	s.mu.Unlock()
	return true
}

// ModelAnswered implements Session.
func (s *session) ModelAnswered() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for b, blk := range s.blocks {
		if s.pos[b] < len(blk.Steps) && blk.Steps[s.pos[b]].Type == wire.StepModel {
			s.pos[b]++
		}
	}
}

// Write implements Session: applied at once, never undone.
func (s *session) Write(callID string, values map[string]json.RawMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.inflight[callID]; !ok {
		return ErrNotInFlight
	}
	for k, v := range values {
		s.mem[k] = v
	}
	return nil
}

// Begin implements Session.
func (s *session) Begin(c Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inflight[c.ID] = c
}

// Finish implements Session.
func (s *session) Finish(c Call, completed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.inflight, c.ID)
	if completed {
		s.records = append(s.records, wire.DFCallRecord{CallID: c.ID, Tool: c.Tool, Origin: c.Origin, Block: c.Block})
	}
}

// Close implements Session.
func (s *session) Close() (State, wire.DFState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := State{Memory: maps.Clone(s.mem), Positions: slices.Clone(s.pos), ActiveSkill: s.active}
	records := slices.Clone(s.records)
	if records == nil {
		records = []wire.DFCallRecord{}
	}
	return st, wire.DFState{Memory: maps.Clone(s.mem), CallRecords: records, ActiveSkill: s.active}
}
