package steps

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// PA-14: one row per resource call, with the fields the plan_items table
// has, written at plan-ready: before anyone is asked or anything applied.
func (p *planArea) planRows(nth string) error {
	s := p.s
	n, turn, err := p.reachedTurn(nth)
	if err != nil {
		return err
	}
	rows := s.planRowsOf(turn)
	calls := s.resourceCallsOf(n)
	if len(calls) == 0 {
		return notReached("the model made no resource call in turn %d, so no plan_item row was due", n)
	}
	if len(rows) != len(calls) {
		return fmt.Errorf("expected %d plan_item rows in turn %d (one per resource call), the kernel reported %d", len(calls), n, len(rows))
	}
	byCall := map[string]wire.Event{}
	for _, r := range rows {
		ev := r.Value.(wire.Event)
		id := payloadString(ev, "tool_call_id")
		if _, dup := byCall[id]; dup {
			return fmt.Errorf("two plan_item rows name tool_call_id %q", id)
		}
		byCall[id] = ev
	}
	for _, c := range calls {
		ev, ok := byCall[c.ID]
		if !ok {
			return fmt.Errorf("no plan_item row in turn %d names the call %s (%s); rows name %v", n, c.ID, c.Name, slices.Collect(mapKeys(byCall)))
		}
		want, _ := p.tool(c.Name)
		switch d := payloadString(ev, "decision"); {
		case payloadString(ev, "tool") != c.Name:
			return fmt.Errorf("the plan_item row of call %s names tool %q, the call is to %q", c.ID, payloadString(ev, "tool"), c.Name)
		case want != nil && payloadString(ev, "provider") != want.Provider:
			return fmt.Errorf("the plan_item row of call %s names provider %q, the tool's provider is %q", c.ID, payloadString(ev, "provider"), want.Provider)
		case d != wire.PolicyAllow && d != wire.PolicyAsk && d != wire.PolicyDeny:
			return fmt.Errorf("the plan_item row of call %s has decision %q, expected allow, ask or deny", c.ID, d)
		case payloadString(ev, "decided_by") == "":
			return fmt.Errorf("the plan_item row of call %s has no decided_by", c.ID)
		}
	}
	// Written at plan-ready: before the first permission request or
	// resource invoke of the turn.
	for _, e := range s.turns()[n] {
		isApply := e.Method == wire.MethodToolInvoke && s.kindOf(e.Value.(wire.ToolInvokeParams).Tool) == wire.KindResource
		if e.Method != wire.MethodFrontendPermission && !isApply {
			continue
		}
		for _, r := range rows {
			if r.Seq > e.Seq {
				return fmt.Errorf("the plan_item row #%d came after %q (#%d); rows are written when the plan is ready, before anyone is asked or anything applied", r.Seq, e.Label, e.Seq)
			}
		}
		break
	}
	return nil
}

// PA-01 (and PA-14): the policy's decision of each item, as its plan_item
// row records it. A row the kernel did not write is PA-14's to judge
// (planRows); here it leaves the decision unread.
func (p *planArea) planDecisions(nth string, table *godog.Table) error {
	s := p.s
	n, turn, err := p.reachedTurn(nth)
	if err != nil {
		return err
	}
	rows := s.planRowsOf(turn)
	var missing []string
	for _, r := range table.Rows {
		if len(r.Cells) < 2 {
			return fmt.Errorf("write the table as | tool | decision |")
		}
		tool, want := strings.TrimSpace(r.Cells[0].Value), strings.TrimSpace(r.Cells[1].Value)
		if tool == "tool" {
			continue // header
		}
		found := false
		for _, e := range rows {
			ev := e.Value.(wire.Event)
			if payloadString(ev, "tool") != tool {
				continue
			}
			found = true
			if got := payloadString(ev, "decision"); got != want {
				return fmt.Errorf("expected the plan_item row of %q to have decision %q, it has %q (decided_by %q)", tool, want, got, payloadString(ev, "decided_by"))
			}
		}
		if !found {
			missing = append(missing, strconv.Quote(tool))
		}
	}
	if len(missing) > 0 {
		return notReached("the kernel wrote no plan_item row for %s in turn %d, so the decision cannot be read there", strings.Join(missing, ", "), n)
	}
	return nil
}

// reachedTurn is turn n and its id, or not reached when the session ended
// before it.
func (p *planArea) reachedTurn(nth string) (int, string, error) {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return 0, "", err
	}
	n, err := ordinal(nth)
	if err != nil {
		return 0, "", err
	}
	if n >= len(s.turns()) {
		return 0, "", notReached("the kernel ran %d turn(s), so there is no turn %d", len(s.turns())-1, n)
	}
	turn, err := s.turnID(n)
	return n, turn, err
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func (p *planArea) distinctDeciders(nth string) error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	n, err := ordinal(nth)
	if err != nil {
		return err
	}
	turn, err := p.s.turnID(n)
	if err != nil {
		return err
	}
	seen := map[string]string{}
	for _, r := range p.s.planRowsOf(turn) {
		ev := r.Value.(wire.Event)
		by := payloadString(ev, "decided_by")
		if by == "" {
			// Whether rows carry decided_by is PA-14's to judge.
			return notReached("the plan_item row of %q has no decided_by, so who decided it cannot be read", payloadString(ev, "tool"))
		}
		if other, dup := seen[by]; dup {
			return fmt.Errorf("the plan_item rows of %q and %q both say decided_by %q; each item should be decided on its own", other, payloadString(ev, "tool"), by)
		}
		seen[by] = payloadString(ev, "tool")
	}
	if len(seen) < 2 {
		return notReached("the kernel wrote %d plan_item row(s) in turn %d, too few to compare their deciders", len(seen), n)
	}
	return nil
}

func (p *planArea) everyCallHasRow(tool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ids := s.callIDsOf(tool)
	if len(ids) == 0 {
		return notReached("the model made no call to %q", tool)
	}
	rows := map[string]bool{}
	for _, e := range s.eventEntries(s.SessionID, wire.EventPlanItem) {
		rows[payloadString(e.Value.(wire.Event), "tool_call_id")] = true
	}
	for _, id := range ids {
		if !rows[id] {
			return fmt.Errorf("the call %s to %q has no plan_item row; a row is written for every item, also for items decided without asking", id, tool)
		}
	}
	return nil
}

// resultsFor finds, in model request n, the results of the calls to tool
// made in the assistant message just before them.
func (p *planArea) resultsFor(nth, tool string) ([]wire.ContentBlock, error) {
	r, err := p.s.reachedModelRequest(nth)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, m := range r.Messages {
		if m.Role != "assistant" {
			continue
		}
		var mine []string
		for _, c := range m.Content {
			if c.Type == wire.BlockToolUse && c.Name == tool {
				mine = append(mine, c.ID)
			}
		}
		if len(mine) > 0 {
			ids = mine // the latest message with such calls
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("model request %s holds no call to %q", nth, tool)
	}
	var out []wire.ContentBlock
	for _, id := range ids {
		found := false
		for _, m := range r.Messages {
			for _, c := range m.Content {
				if c.Type == wire.BlockToolResult && c.ToolUseID == id {
					out, found = append(out, c), true
				}
			}
		}
		if !found {
			return nil, fmt.Errorf("model request %s holds no tool_result for the call %s to %q", nth, id, tool)
		}
	}
	return out, nil
}

// ranCall says whether the call ran and how the log shows it: a
// tool/invoke for it, or, for an interactive call, a frontend/interactive
// for it (interactive calls go to the frontend, never to tool/invoke,
// PROTOCOL.md §7.7). Whether a call was denied is read from this, never
// from the absence of a tool/invoke alone: an interactive call that asked
// the frontend ran, and its answer is no denial.
func (s *Scenario) ranCall(id string) (how string, ran bool) {
	for _, e := range s.World.Log.Entries() {
		switch v := e.Value.(type) {
		case wire.ToolInvokeParams:
			if v.CallID == id {
				return fmt.Sprintf("invoked it (tool/invoke #%d)", e.Seq), true
			}
		case wire.InteractiveParams:
			if v.CallID == id {
				return fmt.Sprintf("ran it: it asked the frontend (frontend/interactive #%d)", e.Seq), true
			}
		}
	}
	return "", false
}

// denied judges one call by the one rule for every denial and every call a
// hook blocked (PROTOCOL.md §7.4, "Denials"): the call never ran (ranCall)
// and res, the tool_result the next model request holds for it, is there
// and refuses it. is_error is not required: the specification's
// tool_result block has no error flag, and a denial "surfaces as
// tool-result text" (plan-apply-gate.md); what that text must say is
// PA-03's own check. But without the flag the text is all that tells the
// model, so it may not be empty: an empty result without is_error is what
// a tool that ran with no output answers, a denial under no reading. A
// denial without the flag is recorded, never judged.
func (s *Scenario) denied(id, tool string, res *wire.ContentBlock, nth string) error {
	if how, ran := s.ranCall(id); ran {
		return fmt.Errorf("expected the call %s to %q to be denied, but the kernel %s", id, tool, how)
	}
	if res == nil {
		return fmt.Errorf("model request %s holds no result for the %q call %s: a denied call still gets a tool_result", nth, tool, id)
	}
	if !res.IsError && saysNothing(res.Content) {
		return fmt.Errorf("the result of the denied call %s to %q in model request %s is %q without is_error: the model reads that as the tool having run with no output, not as a refusal (an error result, or one whose text gives the reason)",
			id, tool, nth, res.Content)
	}
	if !res.IsError {
		s.observeOnce("PA-03", "the denial of the call %s to %q reached the model without is_error (%q): a denial is judged by the call not running and its result, not by the flag", id, tool, safeShort(res.Content))
	}
	return nil
}

// saysNothing: a result text that carries no words: empty, the JSON null
// an unset output is written as (§7.4: a null output's content is "null"),
// or an empty JSON string.
func saysNothing(content string) bool {
	c := strings.TrimSpace(content)
	return c == "" || c == "null" || c == `""`
}

// observeOnce records an observation unless the same one is there already
// (several checks of one scenario read the same denial).
func (s *Scenario) observeOnce(subject, format string, args ...any) {
	what := fmt.Sprintf(format, args...)
	for _, o := range s.Observations {
		if o.Subject == subject && o.What == what {
			return
		}
	}
	s.Observations = append(s.Observations, Observation{Subject: subject, What: what})
}

// invokedCall reports whether a tool/invoke ran for a call id.
func (s *Scenario) invokedCall(id string) (calllog.Entry, bool) {
	for _, e := range s.World.Log.Entries() {
		if v, ok := e.Value.(wire.ToolInvokeParams); ok && v.CallID == id {
			return e, true
		}
	}
	return calllog.Entry{}, false
}
