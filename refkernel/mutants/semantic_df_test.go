package mutants

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/agentconform/conform/refkernel/dfirst"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// Semantic mutants of the deterministic-first profile (issue 29), the way
// framework loops get gates, skills and memory wrong.
//
//   - the wrong member of a group: a requires list holds when any clause
//     holds, not every one (DF-04);
//   - computed once, at the wrong moment: the eligible skills are worked
//     out at the run's first model request and offered unchanged after
//     memory changed (DF-06);
//   - a condition on the request instead of the outcome: a call's memory
//     writes are accepted for as long as the run lasts once it began, not
//     only while it is in flight (DF-08);
//   - remembered where it must be asked again: a tool the user confirmed
//     once runs without a confirmation for the rest of the run (DF-05);
//   - state shared across sessions, keyed by the wrong field: the state a
//     run leaves is kept per profile configuration, so a new session with
//     the same configuration starts where another session stopped (DF-08).
func init() {
	register(
		Mutant{Name: "semantic/df-requires-any-clause", Targets: []string{"DF-04"},
			Breaks: "a requires list holds when any one of its clauses holds, not all of them",
			Apply: func(p loop.Parts) loop.Parts {
				p.DFirst = dfirst.Standard{Eval: anyClause{}}
				return p
			}},
		Mutant{Name: "semantic/df-skills-fixed-at-first-request", Targets: []string{"DF-06"},
			Breaks: "the eligible skills are worked out at a run's first model request and offered unchanged after memory changes",
			Apply:  dfMutant(func(_ wire.DFConfig, rt dfirst.Session) dfirst.Session { return &skillsOnce{Session: rt} })},
		Mutant{Name: "semantic/df-write-window-never-closes", Targets: []string{"DF-08"},
			Breaks: "a call may write memory for the rest of the run once it began, also after it answered",
			Apply:  dfMutant(func(_ wire.DFConfig, rt dfirst.Session) dfirst.Session { return &writesAfterAnswer{Session: rt} })},
		Mutant{Name: "semantic/df-confirmation-remembered", Targets: []string{"DF-05"},
			Breaks: "once the user confirmed a tool, its later calls in the run are not asked about again",
			Apply: dfMutant(func(_ wire.DFConfig, rt dfirst.Session) dfirst.Session {
				return &confirmOnce{Session: rt, ok: map[string]bool{}}
			})},
		Mutant{Name: "semantic/df-state-per-configuration", Targets: []string{"DF-08"},
			Breaks: "the state a run leaves is kept per profile configuration, not per session: a new session with the same configuration starts from another session's memory",
			Apply: func(p loop.Parts) loop.Parts {
				p.DFirst = &sharedState{last: map[string]*dfirst.State{}}
				return p
			}},
	)
}

type anyClause struct{}

func (anyClause) Holds(conds []wire.DFCondition, mem map[string]json.RawMessage) bool {
	if len(conds) == 0 {
		return true
	}
	for _, c := range conds {
		if dfirst.FailClosed.Holds(dfirst.FailClosed{}, []wire.DFCondition{c}, mem) {
			return true
		}
	}
	return false
}

type skillsOnce struct {
	dfirst.Session
	mu     sync.Mutex
	skills []wire.SkillSpec
	done   bool
}

func (s *skillsOnce) Routing(req *wire.ModelStreamParams) {
	s.Session.Routing(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.done {
		s.skills, s.done = slices.Clone(req.Skills), true
		return
	}
	req.Skills = slices.Clone(s.skills)
}

type writesAfterAnswer struct {
	dfirst.Session
	mu    sync.Mutex
	begun map[string]dfirst.Call
}

func (w *writesAfterAnswer) Begin(c dfirst.Call) {
	w.mu.Lock()
	if w.begun == nil {
		w.begun = map[string]dfirst.Call{}
	}
	w.begun[c.ID] = c
	w.mu.Unlock()
	w.Session.Begin(c)
}

func (w *writesAfterAnswer) Write(callID string, values map[string]json.RawMessage) error {
	err := w.Session.Write(callID, values)
	w.mu.Lock()
	c, ok := w.begun[callID]
	w.mu.Unlock()
	if err == nil || !ok {
		return err
	}
	// Reopen the call for the write, then close it again unrecorded.
	w.Session.Begin(c)
	err = w.Session.Write(callID, values)
	w.Session.Finish(c, false)
	return err
}

type confirmOnce struct {
	dfirst.Session
	mu sync.Mutex
	ok map[string]bool
}

func (c *confirmOnce) Admit(ctx context.Context, env dfirst.Env, call dfirst.Call) (dfirst.Verdict, error) {
	c.mu.Lock()
	seen := c.ok[call.Tool]
	c.mu.Unlock()
	if seen {
		// The gate is still checked; only the question is skipped.
		env.Confirm = func(context.Context, wire.ConfirmParams) (wire.ConfirmResult, error) {
			return wire.ConfirmResult{Confirmed: true}, nil
		}
		return c.Session.Admit(ctx, env, call)
	}
	v, err := c.Session.Admit(ctx, env, call)
	if err == nil && v == dfirst.Allow {
		c.mu.Lock()
		c.ok[call.Tool] = true
		c.mu.Unlock()
	}
	return v, err
}

type sharedState struct {
	dfirst.Standard
	mu   sync.Mutex
	last map[string]*dfirst.State
}

func (p *sharedState) Open(cfg wire.DFConfig, tools []wire.ToolSchema, prior *dfirst.State) dfirst.Session {
	b, _ := json.Marshal(cfg)
	key := string(b)
	p.mu.Lock()
	if prior == nil {
		prior = p.last[key]
	}
	p.mu.Unlock()
	return &keptState{Session: p.Standard.Open(cfg, tools, prior), p: p, key: key}
}

type keptState struct {
	dfirst.Session
	p   *sharedState
	key string
}

func (k *keptState) Close() (dfirst.State, wire.DFState) {
	st, df := k.Session.Close()
	k.p.mu.Lock()
	c := st
	k.p.last[k.key] = &c
	k.p.mu.Unlock()
	return st, df
}
