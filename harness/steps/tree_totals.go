package steps

import (
	"fmt"
	"slices"
)

// TA-06 in a tree (issue 29, the clause map's gaps): a session's cost
// reports carry its own running total. The root alone cannot tell a
// kernel that reports a session's rolled-up spend (its subtree's) as its
// session_total_usd from a correct one; a child that spends before and
// after its own child ran can.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^every session of the tree reports its own running total, its child sessions' costs left out$`), s.proves(s.treeOwnTotals, "TA-06"))
	})
}

// treeOwnTotals: each session's session_total_usd is the running sum of its
// own cost reports, and every session the fake model sent usage to reported
// costs of its own.
func (s *Scenario) treeOwnTotals() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	t := s.saTree()
	members := t.members()
	if len(members) < 2 {
		return notReached("no child session was started (no session_meta row names a parent under the root)")
	}
	own := map[string]float64{}
	reports := map[string]int{}
	for _, c := range s.World.Costs() {
		if !slices.Contains(members, c.SessionID) {
			continue
		}
		own[c.SessionID] += c.CostUSD
		reports[c.SessionID]++
		if !saClose(c.SessionTotalUSD, own[c.SessionID]) {
			sub := saSum(s.saCosts(), t.subtree(c.SessionID), 0)
			return fmt.Errorf("cost report %d of session %s carries session_total_usd $%s; that session's own reports so far add up to $%s (its subtree spent $%s in all)",
				reports[c.SessionID], c.SessionID, usd(c.SessionTotalUSD), usd(own[c.SessionID]), usd(sub))
		}
	}
	for _, id := range members {
		if in, _ := s.saUsage([]string{id}); in > 0 && reports[id] == 0 {
			return fmt.Errorf("session %s was sent usage of %d input tokens and reported no cost of its own", id, in)
		}
	}
	return nil
}
