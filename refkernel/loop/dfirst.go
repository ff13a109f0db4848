package loop

import (
	"context"

	"github.com/agentconform/conform/refkernel/dfirst"
	"github.com/agentconform/conform/spec/wire"
)

// The seams of the deterministic-first profile (PROTOCOL.md §17, package
// dfirst). A session whose config has no deterministic_first block has no
// dfRun, and every seam is a no-op for it.

// dfRun is the profile's state for one run of a session.
type dfRun struct {
	rt    dfirst.Session
	gated *dfirst.Gated
	state *dfirst.State // set once the run has ended
}

// validateDF refuses a deterministic_first block the profile cannot run.
func validateDF(cfg wire.SessionConfig, parts Parts) error {
	if cfg.DeterministicFirst == nil {
		return nil
	}
	return parts.DFirst.Validate(*cfg.DeterministicFirst, cfg.Tools)
}

// openDF starts the profile for this run and routes every tool call of the
// session through its dispatch gate (DF-03).
func (s *Session) openDF(setup Setup) {
	cfg := s.cfg.DeterministicFirst
	if cfg == nil {
		return
	}
	rt := s.parts.DFirst.Open(*cfg, s.cfg.Tools, setup.DFPrior)
	g := dfirst.NewGated(s.host, rt, setup.Host)
	s.df = &dfRun{rt: rt, gated: g}
	s.host = g
}

// DF is the run's deterministic-first session, nil when the config has no
// deterministic_first block. The kernel hands it the memory writes of
// running tools (memory/write).
func (s *Session) DF() dfirst.Session {
	if s.df == nil {
		return nil
	}
	return s.df.rt
}

// DFState is what this run leaves to the session's next run, nil before
// the run has ended or without the profile.
func (s *Session) DFState() *dfirst.State {
	if s.df == nil {
		return nil
	}
	return s.df.state
}

// dfPass is the framework's part of the loop, run before every turn: the
// determined steps, with no model request (DF-01, DF-10). It reports
// whether the framework has answered the user so the run ends without the
// model. Its requests belong to no turn.
func (s *Session) dfPass(ctx context.Context) (bool, error) {
	if s.df == nil {
		return false, nil
	}
	cc := wire.CallContext{SessionID: s.id, WorkingDirectory: s.cfg.WorkingDirectory}
	out, err := s.df.rt.Pass(ctx, s.df.gated.Env(cc, func() string { return s.id + "/" + s.ids("step") }))
	if err != nil {
		return false, err
	}
	for _, text := range out.Responses {
		msg := textMessage("assistant", text)
		s.history = append(s.history, msg)
		s.final = &msg
	}
	return out.End, nil
}

// dfOffered keeps the tools whose gate holds now (DF-02, DF-04).
func (s *Session) dfOffered(specs []wire.ToolSpec) []wire.ToolSpec {
	if s.df == nil {
		return specs
	}
	return s.df.rt.Offered(specs)
}

// dfRouting sets the request's eligible skills and active skill (DF-06).
func (s *Session) dfRouting(req *wire.ModelStreamParams) {
	if s.df != nil && req.Purpose == wire.PurposeTurn {
		s.df.rt.Routing(req)
	}
}

// dfSwitched reports whether the turn's reply switched skills, which makes
// it no final answer.
func (s *Session) dfSwitched(t *Turn) bool {
	return s.df != nil && s.df.gated.Switched(t.CallContext.TurnID)
}

// closeDF ends the run and puts its memory and call records in the result.
func (s *Session) closeDF(res *wire.RunSessionResult) {
	if s.df == nil {
		return
	}
	st, out := s.df.rt.Close()
	s.df.state = &st
	res.DeterministicFirst = &out
}
