package steps

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// ---- checks: concurrency and join (SA-03, SA-04) ----

// SA-03: the most sessions of a profile with a model request open at once.
func (s *Scenario) saInFlight(n int, profile string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ids := s.saTree().with(profile, -1)
	type mark struct {
		seq   int
		delta int
	}
	var marks []mark
	for _, id := range ids {
		for _, e := range s.saRequests(id, wire.MethodModelStream) {
			end := e.EndSeq
			if end == 0 {
				end = math.MaxInt
			}
			marks = append(marks, mark{e.Seq, 1}, mark{end, -1})
		}
	}
	sort.Slice(marks, func(i, j int) bool { return marks[i].seq < marks[j].seq })
	cur, most := 0, 0
	for _, m := range marks {
		cur += m.delta
		most = max(most, cur)
	}
	if most != n {
		msg := fmt.Sprintf("expected %d %q sub-agents to have a model request in flight at once (and never more), the most at once was %d (%d such sub-agents in all)", n, profile, most, len(ids))
		if h := s.World.Agents.HoldOf(profile, 1); h != nil && h.TimedOut() && most < n {
			msg += fmt.Sprintf("; the held first requests never reached %d together within %v", n, s.env.Scale(saHoldTimeout))
		}
		return errors.New(msg)
	}
	return nil
}

func (s *Scenario) saEndedWith(n int, profile, status string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	t := s.saTree()
	ids := t.with(profile, -1)
	var got []string
	for _, id := range ids {
		got = append(got, id+": "+t.end[id].Status)
	}
	count := 0
	for _, id := range ids {
		if t.end[id].Status == status && t.end[id].EndedAt != "" {
			count++
		}
	}
	if len(ids) != n || count != n {
		return fmt.Errorf("expected %d %q sub-agents, each ending with status %q (end session_meta row with ended_at), the kernel reported %s", n, profile, status, plain.And(got))
	}
	return nil
}

// saSessionEnd is the seq of a session's session-end dispatch.
func (s *Scenario) saSessionEnd(profile string) (int, string, error) {
	if err := s.mustHaveRun(); err != nil {
		return 0, "", err
	}
	ids := s.saTree().with(profile, -1)
	if len(ids) != 1 {
		return 0, "", fmt.Errorf("expected one %q sub-agent, the kernel reported %d", profile, len(ids))
	}
	for _, e := range s.saRequests(ids[0], wire.MethodHookDispatch) {
		if e.Value.(wire.HookDispatchParams).Point == wire.PointSessionEnd {
			return e.Seq, ids[0], nil
		}
	}
	return 0, ids[0], fmt.Errorf("no session-end dispatch was recorded for %s (the scenario subscribes to session-end)", ids[0])
}

// SA-04: the parent's post-apply comes after the slow child ended.
func (s *Scenario) saPostApplyAfter(profile string) error {
	end, id, err := s.saSessionEnd(profile)
	if err != nil {
		return err
	}
	d := s.dispatchesAt(wire.PointPostApply)
	if len(d) == 0 {
		// A kernel without the point is judged for that by the turn-order
		// checks; the join itself is still judged by the next model request.
		return notReached("the root dispatched no post-apply, so its apply step cannot be placed against %s's session-end (#%d)", id, end)
	}
	if d[0].Seq < end {
		return fmt.Errorf("the root's post-apply (#%d) came before the session-end of its child %s (#%d): the parent went on before every child returned", d[0].Seq, id, end)
	}
	return nil
}

func (s *Scenario) saRequestAfter(nth, profile string) error {
	end, id, err := s.saSessionEnd(profile)
	if err != nil {
		return err
	}
	n, err := ordinal(nth)
	if err != nil {
		return err
	}
	var seqs []int
	for _, e := range s.requests() {
		if e.Method == wire.MethodModelStream {
			seqs = append(seqs, e.Seq)
		}
	}
	if len(seqs) < n {
		return fmt.Errorf("expected at least %s, the kernel sent %d", plain.Count(n, "root model request"), len(seqs))
	}
	if seqs[n-1] < end {
		return fmt.Errorf("root model request %d (#%d) came before the session-end of its child %s (#%d)", n, seqs[n-1], id, end)
	}
	return nil
}

// ---- checks: bookkeeping (SA-05, SA-13) ----

// saTreeRebuilt rebuilds the tree from the session_meta rows alone and
// compares it with the spawns the harness made: every child has a row
// naming its spawner as parent and the spawned profile, scanning rows by
// parent finds exactly each session's children, the root's row has no
// parent, and depth is consistent under the kernel's depth.meaning.
func (s *Scenario) saTreeRebuilt() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	t := s.saTree()
	root, ok := t.first[t.root]
	if !ok {
		return fmt.Errorf("no session_meta row for the root %s", t.root)
	}
	if root.ParentSessionID != "" {
		return fmt.Errorf("the root's session_meta row names a parent, %q", root.ParentSessionID)
	}
	spawned := map[string]fakes.Spawn{}
	for _, sp := range s.World.Agents.Spawns() {
		if sp.Answered && sp.Err == nil && !sp.Claimed {
			spawned[sp.Result.SessionID] = sp
		}
	}
	if len(spawned) == 0 {
		return fmt.Errorf("no spawn was answered with a child session")
	}
	for child, sp := range spawned {
		row, ok := t.first[child]
		switch {
		case !ok:
			return fmt.Errorf("no session_meta row for child %s (spawned by %s)", child, sp.Session)
		case row.ParentSessionID != sp.Session:
			return fmt.Errorf("child %s was spawned by %s, its session_meta row names %q as parent", child, sp.Session, row.ParentSessionID)
		case row.Profile != sp.Params.Profile:
			return fmt.Errorf("child %s was spawned with profile %q, its session_meta row names %q", child, sp.Params.Profile, row.Profile)
		case t.ends[child] != 1:
			return fmt.Errorf("child %s has %d end rows, expected one", child, t.ends[child])
		}
	}
	for _, id := range t.ids {
		if _, ok := spawned[id]; id != t.root && !ok {
			return fmt.Errorf("session %s has a session_meta row but came from no spawn the harness made", id)
		}
		var byScan, bySpawn []string
		for _, x := range t.ids {
			if t.parent[x] == id {
				byScan = append(byScan, x)
			}
		}
		for child, sp := range spawned {
			if sp.Session == id {
				bySpawn = append(bySpawn, child)
			}
		}
		sort.Strings(byScan)
		sort.Strings(bySpawn)
		if !slices.Equal(byScan, bySpawn) {
			return fmt.Errorf("scanning session_meta rows for parent %s finds %v, the spawns from that session made %v", id, byScan, bySpawn)
		}
	}
	remaining := s.env.Info.Readings["depth.meaning"] == "remaining"
	if !remaining && root.Depth != 0 {
		return fmt.Errorf("the root's depth is %d; under depth.meaning %q it is 0", root.Depth, "tree")
	}
	for child := range spawned {
		c, p := t.first[child], t.first[t.parent[child]]
		switch {
		case remaining && c.Depth >= p.Depth:
			return fmt.Errorf("depth of %s is %d, not below its parent's %d (depth.meaning remaining)", child, c.Depth, p.Depth)
		case !remaining && c.Depth != p.Depth+1:
			return fmt.Errorf("depth of %s is %d, its parent's is %d (depth.meaning tree: one more than the parent)", child, c.Depth, p.Depth)
		}
	}
	return nil
}
