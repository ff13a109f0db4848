package steps

import (
	"errors"
	"fmt"
	"slices"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// Sub-agent budgets and registries at their edges (issue 12: several items,
// both sides of a boundary): a root without depth budget, a profile's
// max_depth and a caller's depth hint below the inherited budget, a
// scoped provider list of one, a profile's max_turns, a spawn that names a
// call that has returned, and a parent whose spawn tool returned before
// its child ended.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		// Setup.
		sc.Step(stepRE(`^the first model request of the "([^"]+)" sub-agent is held unless the root ends first$`), s.saHoldUntilRootEnds)

		// Checks.
		sc.Step(stepRE(`^no root model request offered "([^"]+)"$`), s.proves(s.saRootNeverOffered, "SA-06"))
		sc.Step(stepRE(`^the "([^"]+)" (child|grandchild) ran (\d+) ordinary turns? before its final answer$`), s.proves(s.saChildTurns, "TA-02"))
		sc.Step(stepRE(`^the root's end row came after the end row of the "([^"]+)" sub-agent$`), s.proves(s.saRootOutlived, "SA-04"))
		sc.Step(stepRE(`^the spawn that named a call which had already returned was refused, and started no session$`), s.proves(s.saStaleRefused, "SA-10"))
		sc.Step(stepRE(`^every spawn was answered$`), s.proves(s.saEverySpawnAnswered, "SA-03"))
	})
}

// saHoldUntilRootEnds holds a child's first model request for the grace
// window, or until the root has sent its end row: the proof that the root
// ended while its child still ran.
func (s *Scenario) saHoldUntilRootEnds(profile string) error {
	s.World.Agents.Hold(profile, 1, &fakes.ModelHold{Grace: s.env.Scale(saGrace), Early: func() bool {
		for _, m := range s.World.Metas() {
			if m.SessionID == s.SessionID && m.Status != wire.StatusRunning {
				return true
			}
		}
		return false
	}})
	return nil
}

// SA-06: a root whose depth budget is zero has no spawn-capable tool.
func (s *Scenario) saRootNeverOffered(tool string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	reqs := s.modelRequests()
	if len(reqs) == 0 {
		return notReached("the root sent no model request")
	}
	for i, r := range reqs {
		if slices.Contains(toolNames(r), tool) {
			return fmt.Errorf("root model request %d offered %q, which a session with no depth budget left must not have (it offered %s)", i+1, tool, plain.JSON(toolNames(r)))
		}
	}
	return nil
}

// TA-02 for a child: the profile's max_turns is the child's bound.
func (s *Scenario) saChildTurns(profile, rel string, n int) error {
	id, _, err := s.saOne(profile, rel)
	if err != nil {
		return err
	}
	// The child's turn requests read by the root's one classification
	// (finalAnswerAt): the requests before its final-answer request are
	// its ordinary turns.
	var turns []calllog.Entry
	for _, e := range s.saRequests(id, wire.MethodModelStream) {
		if p, _ := e.Value.(wire.ModelStreamParams); p.Purpose != wire.PurposeLoopCheck && p.Attempt <= 1 {
			turns = append(turns, e)
		}
	}
	ordinary, final := len(turns), s.finalAnswerAt(turns)
	if final >= 0 {
		ordinary = final
	}
	// How many ordinary turns ran is the bound's own clause; whether a
	// final-answer turn followed is TA-08's and TA-21's, as for a root
	// (bounds.feature), so a child without one is not failed here.
	if ordinary != n {
		how := "before its final answer"
		if final < 0 {
			how = "and no final-answer turn"
		}
		return fmt.Errorf("the %q %s (%s) ran %d ordinary turns %s; its profile's max_turns is %d", profile, rel, id, ordinary, how, n)
	}
	return nil
}

// SA-04: a child whose spawn tool returned early is still waited for: the
// root's end row comes after the child's.
func (s *Scenario) saRootOutlived(profile string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	t := s.saSettled()
	ids := t.with(profile, 1)
	if len(ids) == 0 {
		return notReached("no %q child was started", profile)
	}
	rootEnd, ok := t.endSeq[t.root]
	if !ok {
		return fmt.Errorf("the root %s sent no end session_meta row", t.root)
	}
	for _, id := range ids {
		end, ok := t.endSeq[id]
		if !ok {
			return fmt.Errorf("the child %s never sent its end session_meta row, though the root %s ended (#%d)", id, t.root, rootEnd)
		}
		if end > rootEnd {
			return fmt.Errorf("the root %s ended (end row #%d) while its child %s still ran (its end row is #%d): a parent must wait for every child it started", t.root, rootEnd, id, end)
		}
	}
	return nil
}

// SA-10 (A-30, PROTOCOL.md §6.4): a spawn must come from a tool/invoke of
// the parent that is in flight now; one naming a call that has returned is
// refused with -32602 and starts nothing.
func (s *Scenario) saStaleRefused() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	var stale []fakes.Spawn
	for _, sp := range s.World.Agents.Spawns() {
		if sp.Stale {
			stale = append(stale, sp)
		}
	}
	if len(stale) == 0 {
		return notReached("the model's spawn call naming an earlier call was never invoked")
	}
	for _, sp := range stale {
		var rerr *jsonrpc.Error
		switch {
		case !sp.Answered:
			return fmt.Errorf("the spawn naming call %q, which had returned, was never answered", sp.Params.CallID)
		case errors.As(sp.Err, &rerr) && rerr.Code == wire.CodeMethodNotFound:
			// A kernel without sub-agents refuses every spawn alike; the
			// rows that need a child fail it, not this one.
			return notReached("the kernel answers session/spawn with %v: it runs no sub-agents, so a refusal of the stale call says nothing about it", sp.Err)
		case sp.Err == nil:
			return fmt.Errorf("the spawn naming call %q, which had already returned, was accepted (child %s, status %q): a spawn must come from a tool call in flight", sp.Params.CallID, sp.Result.SessionID, sp.Result.Status)
		case !errors.As(sp.Err, &rerr) || rerr.Code != wire.CodeInvalidParams:
			return fmt.Errorf("the spawn naming call %q, which had already returned, was refused with %v; PROTOCOL.md §6.4 says -32602", sp.Params.CallID, sp.Err)
		}
	}
	return nil // that it started nothing is "N sub-agents were started"
}

// SA-03: whatever the kernel makes of the cap, no spawn waits for
// ever: each is answered, with a child's result or a refusal.
func (s *Scenario) saEverySpawnAnswered() error {
	if s.ran && s.Rejected != nil {
		return notReached("the kernel refused the config (%s), which A-25 allows for a cap of 0: no spawn was made", s.Rejected.Message)
	}
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	sps := s.World.Agents.Spawns()
	if len(sps) == 0 {
		return notReached("no spawn was made")
	}
	for _, sp := range sps {
		if !sp.Answered {
			return fmt.Errorf("the spawn of profile %q by %s was never answered", sp.Params.Profile, sp.Session)
		}
	}
	return nil
}
