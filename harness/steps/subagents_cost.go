package steps

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// ---- checks: cost over the tree (TA-07, SA-10, SA-11) ----

type saCost struct {
	seq     int
	session string
	usd     float64
	in, out int64
}

func (s *Scenario) saCosts() []saCost {
	var out []saCost
	for _, e := range s.World.Log.Select(func(e *calllog.Entry) bool { return e.Method == wire.NotifyCostUsage }) {
		if c, ok := e.Value.(wire.CostUsage); ok {
			out = append(out, saCost{e.Seq, c.SessionID, c.CostUSD, c.Usage.InputTokens, c.Usage.OutputTokens})
		}
	}
	return out
}

func saSum(costs []saCost, in []string, before int) (usd float64) {
	for _, c := range costs {
		if slices.Contains(in, c.session) && (before == 0 || c.seq < before) {
			usd += c.usd
		}
	}
	return usd
}

func saClose(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b)) }

// saBudget is what a child's budget must be: the smaller of the root's
// remainder when the child started and its profile's cap (§3.2).
func (s *Scenario) saBudget(profile string) (string, saTree, float64, error) {
	id, t, err := s.saOne(profile, "child")
	if err != nil {
		return "", t, 0, err
	}
	if s.Cfg.Bounds.MaxCostUSD == nil {
		return "", t, 0, scenarioDefect("the scenario sets no cost bound on the root")
	}
	spent := saSum(s.saCosts(), t.members(), t.startSeq[id])
	budget := *s.Cfg.Bounds.MaxCostUSD - spent
	if prof, err := s.saProfileRef(profile); err == nil && prof.MaxCostUSD != nil {
		budget = min(budget, *prof.MaxCostUSD)
	}
	return id, t, budget, nil
}

// TA-07 (a): the child's reported budget is min(root's remainder, cap),
// where the kernel reports it (remaining_cost_budget_usd is optional).
func (s *Scenario) saChildBudget(profile string) error {
	id, t, budget, err := s.saBudget(profile)
	if err != nil {
		return err
	}
	got := t.first[id].RemainingCostBudgetUSD
	if got == nil {
		// The field is optional: the budget is then checked only through
		// the moment the child's bound fires (the next step).
		return notReached("the start session_meta row of %s carries no remaining_cost_budget_usd (an optional field)", id)
	}
	if !saClose(*got, budget) {
		return fmt.Errorf("%s started with a budget of $%.9f; the root's remainder at spawn, capped by the profile, was $%.9f", id, *got, budget)
	}
	return nil
}

// TA-07 (b), SA-10: the child's bound fires at the step 17 of the first
// turn by whose end its subtree had spent the budget; exactly one
// final-answer request follows, and the child ends error_max_budget_usd.
func (s *Scenario) saChildBoundFired(profile string) error {
	id, t, budget, err := s.saBudget(profile)
	if err != nil {
		return err
	}
	costs := s.saCosts()
	sub := t.subtree(id)
	reqs := s.saRequests(id, wire.MethodModelStream)
	k := 0
	for j := 1; j <= len(reqs); j++ {
		before := 0
		if j < len(reqs) {
			before = reqs[j].Seq
		}
		if saSum(costs, sub, before) >= budget-1e-12 {
			k = j
			break
		}
	}
	if k == 0 {
		return fmt.Errorf("%s never spent its budget of $%.6f (it spent $%.6f over %d requests)", id, budget, saSum(costs, sub, 0), len(reqs))
	}
	if len(reqs) != k+1 {
		return fmt.Errorf("%s had spent its budget of $%.6f by the end of turn %d, so its bound fires there and exactly one final-answer request follows (%d requests); it sent %d",
			id, budget, k, k+1, len(reqs))
	}
	if last := reqs[k].Value.(wire.ModelStreamParams); len(last.Tools) != 0 {
		return fmt.Errorf("the last model request of %s still offered tools %s: no final-answer turn", id, plain.JSON(toolNames(last)))
	}
	if st := t.end[id].Status; st != wire.StatusErrorMaxBudgetUSD {
		return fmt.Errorf("%s ended with status %q, expected %q", id, st, wire.StatusErrorMaxBudgetUSD)
	}
	return nil
}

// TA-07 (c): the root fires at its next step 17 after the join although
// its own spending stayed under the bound.
func (s *Scenario) saRootBoundFired(under string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	limit, err := strconv.ParseFloat(under, 64)
	if err != nil {
		return err
	}
	t := s.saTree()
	own := saSum(s.saCosts(), []string{t.root}, 0)
	if own >= limit {
		return fmt.Errorf("the root's own replies cost $%.6f, not under $%s: the scenario does not isolate the roll-up", own, under)
	}
	if s.Result.Status != wire.StatusErrorMaxBudgetUSD {
		return fmt.Errorf("expected the root to end %q once its descendants' spending used up its budget, it ended %q", wire.StatusErrorMaxBudgetUSD, s.Result.Status)
	}
	reqs := s.requests()
	var models []calllog.Entry
	for _, e := range reqs {
		if e.Method == wire.MethodModelStream {
			models = append(models, e)
		}
	}
	if len(models) != 2 {
		return fmt.Errorf("expected the root's bound to fire at step 17 of the spawning turn, then one final-answer request (2 model requests), the root sent %d", len(models))
	}
	last := models[1].Value.(wire.ModelStreamParams)
	if len(last.Tools) != 0 {
		return fmt.Errorf("the root's second model request offered tools %s: no final-answer turn", plain.JSON(toolNames(last)))
	}
	for _, id := range t.members() {
		if id != t.root && t.endSeq[id] > models[1].Seq {
			return fmt.Errorf("the root's final-answer request (#%d) came before its descendant %s ended (#%d)", models[1].Seq, id, t.endSeq[id])
		}
	}
	return nil
}

// saUsage sums what the fake model reported for a set of sessions.
func (s *Scenario) saUsage(ids []string) (in, out int64) {
	for _, e := range s.World.Log.Select(func(e *calllog.Entry) bool {
		return e.Kind == calllog.Request && e.Method == wire.MethodModelStream && slices.Contains(ids, e.SessionID)
	}) {
		var r wire.ModelStreamResult
		_ = json.Unmarshal(e.Result, &r)
		for _, ev := range r.Events {
			if ev.Type == wire.EventUsage && ev.Usage != nil {
				in += ev.Usage.InputTokens
				out += ev.Usage.OutputTokens
			}
		}
	}
	return in, out
}

func (s *Scenario) saTotals(what string, res wire.RunSessionResult, ids []string) error {
	usd := saSum(s.saCosts(), ids, 0)
	in, out := s.saUsage(ids)
	if !saClose(res.TotalCostUSD, usd) || res.TotalInputTokens != in || res.TotalOutputTokens != out {
		return fmt.Errorf("%s reports $%s, %d input and %d output tokens; its sessions %s spent $%s (sum of cost reports) on %d input and %d output tokens (the fake model's usage)",
			what, plain.USD(res.TotalCostUSD), res.TotalInputTokens, res.TotalOutputTokens, plain.And(ids), plain.USD(usd), in, out)
	}
	return nil
}

// SA-11: the spawn answer comes after the child is terminal, with its
// status and the totals of its whole subtree.
func (s *Scenario) saSpawnAnswer(profile, rel string) error {
	id, t, err := s.saOne(profile, rel)
	if err != nil {
		return err
	}
	sp, ok := s.saSpawnOf(id)
	if !ok {
		return fmt.Errorf("no session/spawn was answered with session %s", id)
	}
	end, ok := t.end[id]
	switch {
	case !ok:
		return fmt.Errorf("%s has no end session_meta row", id)
	case sp.Result.Status == wire.StatusRunning || sp.Result.Status != end.Status:
		return fmt.Errorf("the spawn of %s was answered with status %q, its end session_meta row says %q", id, sp.Result.Status, end.Status)
	}
	for _, e := range s.World.Log.Entries() {
		if e.Seq == sp.Seq && e.EndSeq < t.endSeq[id] {
			return fmt.Errorf("the spawn of %s was answered (#%d) before the child ended (its end row is #%d)", id, e.EndSeq, t.endSeq[id])
		}
	}
	if fakes.MessageText(sp.Result.FinalMessage) != fakes.MessageText(end.FinalMessage) {
		return fmt.Errorf("the spawn of %s was answered with final message %q, its end row holds %q", id,
			fakes.MessageText(sp.Result.FinalMessage), fakes.MessageText(end.FinalMessage))
	}
	return s.saTotals("the spawn answer of "+id, sp.Result, t.subtree(id))
}

func (s *Scenario) saRootTotals() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	return s.saTotals("the session/run result", s.Result, s.saTree().members())
}
