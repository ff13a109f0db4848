package steps

import (
	"fmt"
	"time"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/spec/wire"
)

// SA-08 for a middle session (issue 29, the clause map's gaps): the
// harness cancels a child that has a child of its own while a sibling of
// it still runs. The cancelled session and its descendants end cancelled;
// its parent and its sibling run on. A kernel that keeps one cancel handle
// per run cancels the whole tree; one that reaches only the leaves leaves
// the middle session running.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		middle := &saCancelMark{} // when the harness cancelled the middle session
		sc.Step(stepRE(`^the first model request of the "([^"]+)" sub-agent is held until the "([^"]+)" child has ended$`), s.saHoldUntilEnded)
		sc.Step(stepRE(`^the harness cancels the "([^"]+)" child once the first model request of its "([^"]+)" sub-agent is held$`), func(profile, below string) error {
			return s.saCancelMiddleOnHold(middle, profile, below)
		})
		sc.Step(stepRE(`^the "([^"]+)" child and its descendants ended "cancelled", while the root and the "([^"]+)" child ran on and completed$`), s.proves(func(profile, sibling string) error {
			return s.saMiddleCancelled(middle, profile, sibling)
		}, "SA-08"))
	})
}

// saEnded says whether a child of the profile has its end row.
func (s *Scenario) saEnded(profile string) bool {
	for _, m := range s.World.Metas() {
		if m.Profile == profile && m.ParentSessionID != "" && m.Status != wire.StatusRunning {
			return true
		}
	}
	return false
}

// saHoldUntilEnded keeps a sibling running until the other child ended (or
// the hold's grace, far beyond a prompt cancellation, ran out).
func (s *Scenario) saHoldUntilEnded(profile, other string) error {
	s.World.Agents.Hold(profile, 1, &fakes.ModelHold{Grace: s.env.Scale(saCancelHold), Early: func() bool { return s.saEnded(other) }})
	return nil
}

// saCancelMiddleOnHold cancels the parent of the held session: the middle
// of the tree, named by the held session's session_meta row.
func (s *Scenario) saCancelMiddleOnHold(c *saCancelMark, profile, below string) error {
	s.World.Agents.Hold(below, 1, &fakes.ModelHold{Grace: s.env.Scale(saCancelHold), OnArrive: func(session string) {
		parent := ""
		for _, m := range s.World.Metas() {
			if m.SessionID == session {
				parent = m.ParentSessionID
			}
		}
		if p, child := s.World.Agents.ProfileOf(parent); parent == "" || !child || p != profile {
			return // not under a child of that profile: nothing to cancel
		}
		c.once.Do(func() {
			c.at.Store(time.Now().UnixNano())
			s.World.Agents.Cancel(parent)
		})
	}})
	return nil
}

// saMiddleCancelled: the middle session and its descendants end cancelled;
// the root runs on to a later model request and completes, and so does the
// sibling that was still running at the cancel.
func (s *Scenario) saMiddleCancelled(c *saCancelMark, profile, sibling string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if c.time().IsZero() {
		return notReached("the harness never cancelled the %q child: no sub-agent of it reached its first model request", profile)
	}
	t := s.saSettled()
	ids := t.with(profile, 1)
	if len(ids) != 1 {
		return fmt.Errorf("expected one %q child, the kernel reported %v", profile, ids)
	}
	id := ids[0]
	for _, x := range t.subtree(id) {
		if st := t.end[x].Status; st != wire.StatusCancelled {
			return fmt.Errorf("the harness cancelled %s; %s, of its subtree, ended %q (no end row if empty), not %q", id, x, st, wire.StatusCancelled)
		}
	}
	if s.Result.Status != wire.StatusCompleted {
		return fmt.Errorf("the harness cancelled only the %q child %s; the root, its parent, ended %q instead of running on to %q", profile, id, s.Result.Status, wire.StatusCompleted)
	}
	after := false
	for _, e := range s.saRequests(t.root, wire.MethodModelStream) {
		after = after || e.Seq > t.endSeq[id]
	}
	if !after {
		return fmt.Errorf("the root sent no model request after %s ended cancelled: it did not run on", id)
	}
	sibs := t.with(sibling, 1)
	if len(sibs) != 1 {
		return fmt.Errorf("expected one %q child, the kernel reported %v", sibling, sibs)
	}
	if st := t.end[sibs[0]].Status; st != wire.StatusCompleted {
		return fmt.Errorf("the harness cancelled %s; its sibling %s ended %q instead of running on to %q", id, sibs[0], st, wire.StatusCompleted)
	}
	return nil
}
