package steps

import (
	"fmt"

	"github.com/agentconform/conform/spec/wire"
)

// TA-18 in a tree (issue 29, clause TA-18.once per session): every session
// a kernel reports in its session_meta rows, children and grandchildren
// included, dispatches session-start once to each subscriber before its
// first model request and session-end once after its last. A kernel that
// fires the lifecycle points for the root only passes every root-session
// scenario.
func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^every session of the tree dispatched "session-start" once before its first model request and "session-end" once after its last$`), s.proves(s.treeLifecycleOnce, "TA-18"))
	})
}

func (s *Scenario) treeLifecycleOnce() error {
	if s.ran && s.Rejected != nil {
		// A kernel without sub-agents refuses the tree's config: that is
		// the SA rows' to judge, not TA-18's.
		return notReached("the kernel refused the config of the tree (%s), so no child session ran", s.Rejected.Message)
	}
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for _, p := range []string{wire.PointSessionStart, wire.PointSessionEnd} {
		if why := s.hookPointUnseen(p); why != "" {
			return glueNotReached(why)
		}
	}
	t := s.saTree()
	ids := t.members()
	if len(ids) < 2 {
		return notReached("the kernel reported no session below the root (%d session_meta sessions)", len(ids))
	}
	for _, id := range ids {
		models := s.saRequests(id, wire.MethodModelStream)
		starts, ends := map[string][]int{}, map[string][]int{}
		for _, e := range s.saRequests(id, wire.MethodHookDispatch) {
			p := e.Value.(wire.HookDispatchParams)
			switch p.Point {
			case wire.PointSessionStart:
				starts[p.Subscriber] = append(starts[p.Subscriber], e.Seq)
			case wire.PointSessionEnd:
				ends[p.Subscriber] = append(ends[p.Subscriber], e.Seq)
			}
		}
		for point, got := range map[string]map[string][]int{wire.PointSessionStart: starts, wire.PointSessionEnd: ends} {
			if len(got) == 0 {
				return fmt.Errorf("session %s (profile %q) never dispatched %s", id, t.first[id].Profile, point)
			}
			for sub, seqs := range got {
				if len(seqs) != 1 {
					return fmt.Errorf("session %s dispatched %s to %q %d times", id, point, sub, len(seqs))
				}
				if len(models) == 0 {
					continue
				}
				if point == wire.PointSessionStart && seqs[0] > models[0].Seq {
					return fmt.Errorf("session %s dispatched session-start to %q (#%d) after its first model request (#%d)", id, sub, seqs[0], models[0].Seq)
				}
				if point == wire.PointSessionEnd && seqs[0] < models[len(models)-1].Seq {
					return fmt.Errorf("session %s dispatched session-end to %q (#%d) before its last model request (#%d)", id, sub, seqs[0], models[len(models)-1].Seq)
				}
			}
		}
	}
	return nil
}
