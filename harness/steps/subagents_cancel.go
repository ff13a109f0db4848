package steps

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// ---- checks: cancellation (SA-08, SA-14) ----

// saSettled waits, boundedly, until every session of the tree has its end
// row: a kernel may answer the root before its descendants' rows arrive.
func (s *Scenario) saSettled() saTree {
	deadline := time.Now().Add(s.env.Scale(saSettle))
	for {
		t := s.saTree()
		open := false
		for _, id := range t.members() {
			if t.ends[id] == 0 {
				open = true
			}
		}
		if !open || time.Now().After(deadline) {
			return t
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (s *Scenario) saTreeSize(n int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if got := s.saTree().members(); len(got) != n {
		return fmt.Errorf("expected %d sessions in the tree (root included), the kernel reported %v", n, got)
	}
	return nil
}

// saInFlight lists the requests of the tree's sessions that were in flight
// when the harness cancelled: started before the cancel, not yet answered.
func (s *Scenario) saInFlightAt(t saTree, at time.Time) []calllog.Entry {
	members := t.members()
	return s.World.Log.Select(func(e *calllog.Entry) bool {
		return e.Kind == calllog.Request && slices.Contains(members, e.SessionID) &&
			!e.Start.After(at) && (!e.Answered() || e.End.After(at))
	})
}

// saReached tells the sessions the cascade reached: the root, which the
// harness cancelled itself, and every session whose request in flight at
// the cancel ended before the fakes' hold would have let it go, or that had
// none in flight. A session whose in-flight request was held to the end of
// the fake's grace was not reached: that is SA-08's
// failure, and what SA-14 says of a cancelled child does not apply to it.
func (s *Scenario) saReached(c *saCancelMark, t saTree) (reached map[string]bool, missed []string) {
	reached = map[string]bool{}
	at := c.time()
	if at.IsZero() {
		return nil, nil
	}
	ran := map[string]bool{}
	for _, e := range s.saInFlightAt(t, at) {
		if e.Answered() && e.Err == "" && e.End.Sub(at) > saCancelHold/2 {
			ran[e.SessionID] = true // held to the fake's grace: never cancelled
		}
	}
	for _, id := range t.members() {
		if id == t.root || !ran[id] {
			reached[id] = true
		} else {
			missed = append(missed, id)
		}
	}
	return reached, missed
}

// saCancelled is the tree after the cancel, and the sessions the cascade
// reached; not reached when the harness never cancelled.
func (s *Scenario) saCancelled(c *saCancelMark) (saTree, map[string]bool, error) {
	if err := s.mustHaveRun(); err != nil {
		return saTree{}, nil, err
	}
	if c.time().IsZero() {
		return saTree{}, nil, notReached("the harness never cancelled the session: the held model request it waits for never came")
	}
	t := s.saSettled()
	reached, missed := s.saReached(c, t)
	if len(missed) > 0 {
		s.observe("SA-14", "the cascade never reached %v (its call in flight ran to a normal answer); SA-14 is judged on the other sessions", missed)
	}
	return t, reached, nil
}

func (s *Scenario) saAllEnded(c *saCancelMark, status string) error {
	t, reached, err := s.saCancelled(c)
	if err != nil {
		return err
	}
	for _, id := range t.members() {
		if !reached[id] {
			continue
		}
		e, ok := t.end[id]
		switch {
		case !ok:
			return fmt.Errorf("session %s has no end session_meta row %v after the root ended: it is still running", id, s.env.Scale(saSettle))
		case e.Status != status:
			return fmt.Errorf("session %s ended with status %q in its session_meta row, expected %q", id, e.Status, status)
		case e.EndedAt == "":
			return fmt.Errorf("the end session_meta row of %s has no ended_at", id)
		}
	}
	return nil
}

func (s *Scenario) saAllSessionEnd(c *saCancelMark, status string) error {
	t, reached, err := s.saCancelled(c)
	if err != nil {
		return err
	}
	for _, id := range t.members() {
		if !reached[id] {
			continue
		}
		subs := map[string]int{}
		for _, e := range s.saRequests(id, wire.MethodHookDispatch) {
			p := e.Value.(wire.HookDispatchParams)
			if p.Point != wire.PointSessionEnd {
				continue
			}
			subs[p.Subscriber]++
			if p.Payload.Status != status {
				return fmt.Errorf("the session-end dispatch of %s (#%d) carries status %q, expected %q", id, e.Seq, p.Payload.Status, status)
			}
		}
		if len(subs) == 0 {
			return fmt.Errorf("session %s never dispatched session-end", id)
		}
		for sub, n := range subs {
			if n != 1 {
				return fmt.Errorf("session %s dispatched session-end to %q %d times", id, sub, n)
			}
		}
	}
	return nil
}

// SA-08: every request the tree had in flight when the harness cancelled
// was over within ms: a descendant's held model call or tool call is
// cancelled ($/cancelRequest), not waited out. The fakes hold those calls
// twice as long as the bound unless the kernel cancels them, so only a
// cancel ends them in time; a spawn tool call may also end with its
// child's answer, when the cascade ended the child first (the kernel's
// $/cancelRequest for it may then come after that answer).
func (s *Scenario) saCallsAbandoned(c *saCancelMark, ms int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	at := c.time()
	if at.IsZero() {
		return notReached("the harness never cancelled the session: the held model request it waits for never came")
	}
	t := s.saTree()
	if len(s.saInFlightAt(t, at)) == 0 {
		return notReached("no request of the tree was in flight when the harness cancelled")
	}
	bound := s.within(ms)
	for !time.Now().After(at.Add(bound)) && slices.ContainsFunc(s.saInFlightAt(t, at), func(e calllog.Entry) bool { return !e.Answered() }) {
		time.Sleep(5 * time.Millisecond)
	}
	var bad []string
	for _, e := range s.saInFlightAt(t, at) {
		switch {
		case !e.Answered():
			bad = append(bad, fmt.Sprintf("%s of %s (#%d) was still in flight %v after the cancel", e.Label, e.SessionID, e.Seq, bound))
		case e.End.Sub(at) > bound && e.Err == "":
			bad = append(bad, fmt.Sprintf("%s of %s (#%d) was never cancelled: it ran to its answer %v after the cancel", e.Label, e.SessionID, e.Seq, e.End.Sub(at).Round(time.Millisecond)))
		case e.End.Sub(at) > bound:
			bad = append(bad, fmt.Sprintf("%s of %s (#%d) was cancelled only %v after the cancel", e.Label, e.SessionID, e.Seq, e.End.Sub(at).Round(time.Millisecond)))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("expected every call the tree had in flight when the harness cancelled to be cancelled ($/cancelRequest) within %v; %s", bound, strings.Join(bad, "; "))
	}
	return nil
}

// SA-08: nothing is left running: no session sent a request after its own
// end row, and none is sent during a short quiet window afterwards.
func (s *Scenario) saNothingAfterEnd() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	t := s.saSettled()
	quiet := time.Now().Add(200 * time.Millisecond)
	for time.Now().Before(quiet) {
		time.Sleep(20 * time.Millisecond)
	}
	for _, id := range t.members() {
		end := t.endSeq[id]
		if end == 0 {
			return fmt.Errorf("session %s never ended", id)
		}
		for _, e := range s.saRequests(id, "") {
			if e.Seq > end {
				return fmt.Errorf("session %s sent %q (#%d) after its end row (#%d): it was still running", id, e.Label, e.Seq, end)
			}
		}
	}
	return nil
}

func (s *Scenario) saSpawnsAnswered(c *saCancelMark, status string) error {
	_, reached, err := s.saCancelled(c)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(s.env.Scale(saSettle))
	for {
		sps := s.World.Agents.Spawns()
		waiting := slices.ContainsFunc(sps, func(sp fakes.Spawn) bool { return !sp.Answered })
		if !waiting || time.Now().After(deadline) {
			if len(sps) == 0 {
				return fmt.Errorf("no spawn was made")
			}
			for _, sp := range sps {
				switch {
				case !sp.Answered:
					return fmt.Errorf("the spawn of profile %q from %s was never answered", sp.Params.Profile, sp.Session)
				case sp.Err == nil && !reached[sp.Result.SessionID]:
					continue // the cascade never reached it (SA-08)
				case sp.Err != nil:
					return fmt.Errorf("the spawn of profile %q from %s was answered with an error: %v", sp.Params.Profile, sp.Session, sp.Err)
				case sp.Result.Status != status:
					return fmt.Errorf("the spawn of %s was answered with status %q, expected %q", sp.Result.SessionID, sp.Result.Status, status)
				}
			}
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// SA-14: the partial message of a cancelled child is on record: in its end
// row, or in a message event of that session.
func (s *Scenario) saPartialMessage(profile, text string) error {
	id, _, err := s.saOne(profile, "child")
	if err != nil {
		return err
	}
	t := s.saSettled()
	if strings.Contains(fakes.MessageText(t.end[id].FinalMessage), text) {
		return nil
	}
	for _, ev := range s.World.Events() {
		if ev.SessionID == id && ev.Kind == wire.EventMessage && strings.Contains(saJSON(ev.Payload), text) {
			return nil
		}
	}
	return fmt.Errorf("the partial message %q of cancelled child %s is neither in its end session_meta row (final_message %q) nor in a message event",
		text, id, fakes.MessageText(t.end[id].FinalMessage))
}

// a spawn naming a parent other than the caller's session is refused.
func (s *Scenario) saClaimsRefused() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	n := 0
	for _, sp := range s.World.Agents.Spawns() {
		if !sp.Claimed {
			continue
		}
		n++
		if !sp.Answered {
			return fmt.Errorf("the spawn from %s that named %q as its parent was never answered", sp.Session, sp.Params.ParentSessionID)
		}
		if sp.Err == nil {
			return fmt.Errorf("the spawn from %s that named %q as its parent was accepted (child %s)", sp.Session, sp.Params.ParentSessionID, sp.Result.SessionID)
		}
	}
	if n == 0 {
		return fmt.Errorf("no spawn claimed another parent: the tool calls of the scenario never reached the harness")
	}
	return nil
}
