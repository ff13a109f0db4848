package steps

import (
	"errors"
	"fmt"

	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

// SA-10's honest side (issue 29, SA-10.parent): a spawn that names its
// caller's own session (and its call in flight) is accepted, and the child
// it starts is that caller's, as its session_meta row says. A loop that
// lets only the top-level agent spawn refuses a child's honest spawn.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^every spawn that named its caller's own session was accepted, its child under that caller$`), s.proves(s.saHonestSpawns, "SA-10"))
	})
}

func (s *Scenario) saHonestSpawns() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	t := s.saTree()
	nested := 0
	for _, sp := range s.World.Agents.Spawns() {
		if sp.Claimed || sp.Stale {
			continue
		}
		var rerr *jsonrpc.Error
		switch {
		case !sp.Answered:
			return fmt.Errorf("the spawn from %s naming its own session was never answered", sp.Session)
		case errors.As(sp.Err, &rerr) && rerr.Code == wire.CodeMethodNotFound:
			// A kernel without sub-agents refuses every spawn alike (as in
			// saStaleRefused): the rows that need a child fail it ("N
			// sub-agents were started"), not this clause, which is about a
			// child's spawn and cannot be reached without one.
			return notReached("the kernel answers session/spawn with %v: it runs no sub-agents, so no session below the root can spawn", sp.Err)
		case sp.Err != nil:
			return fmt.Errorf("the spawn from %s naming its own session and its call in flight was refused: %v", sp.Session, sp.Err)
		}
		if got := t.parent[sp.Result.SessionID]; got != sp.Session {
			return fmt.Errorf("the spawn from %s started %s, whose session_meta row names %q as its parent", sp.Session, sp.Result.SessionID, got)
		}
		if sp.Session != t.root {
			nested++
		}
	}
	if nested == 0 {
		return notReached("no session below the root spawned: the honest nested spawn never reached the harness")
	}
	return nil
}
