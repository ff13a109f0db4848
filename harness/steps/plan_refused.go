package steps

import (
	"fmt"
	"sync"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/spec/wire"
)

// what happens to an item after the kernel refused a decision about
// it (an ALWAYS scope it cannot persist, a corrected input that fails the
// input schema). The item stays pending either way; the kernel's reading
// plan.refused_decision says how the next decision reaches it: the kernel
// asks again with a new frontend/permission ("asked_again", the default),
// or it waits for a decision from any frontend connection ("pending"), and
// then the harness sends the scenario's next answer with frontend/decide
// as soon as the kernel's error event names the refused item.

const readingRefusedDecision = "plan.refused_decision"

// laterAnswers are the "then" answers a kernel that does not ask again is
// sent by frontend/decide, per tool; the last one repeats.
type laterAnswers struct {
	mu    sync.Mutex
	by    map[string][]fakes.Permission
	sent  map[string]int // per plan item
	hooky bool           // the event hook is installed
}

// maxDecidesPerItem bounds the decisions sent for one refused item, so a
// kernel that refuses every answer cannot spin the scenario.
const maxDecidesPerItem = 3

// addAnswer scripts one answer of the frontend about a tool: a first answer
// (or any answer) goes to the primary connection's frontend/permission; a
// "then" answer too, unless the kernel reads A-37 as "pending".
func (p *planArea) addAnswer(when, tool string, perm fakes.Permission) {
	if when != "then " || p.s.env.Info.Readings[readingRefusedDecision] != "pending" {
		p.s.World.Frontend.AddPermission(tool, perm)
		return
	}
	l := &p.later
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil {
		l.by, l.sent = map[string][]fakes.Permission{}, map[string]int{}
	}
	l.by[tool] = append(l.by[tool], perm)
	if l.hooky {
		return
	}
	l.hooky = true
	prev := p.s.World.OnEvent
	p.s.World.OnEvent = func(ev wire.Event) {
		if prev != nil {
			prev(ev)
		}
		p.decideRefused(ev)
	}
}

// decideRefused answers a refused item with the tool's next "then" answer.
func (p *planArea) decideRefused(ev wire.Event) {
	id := payloadString(ev, "plan_item_id")
	if ev.Kind != wire.EventError || ev.SessionID != p.s.SessionID || id == "" {
		return
	}
	tool := ""
	for _, a := range p.s.permissionItems(p.s.SessionID) {
		if a.item.ID == id {
			tool = a.item.Tool
		}
	}
	l := &p.later
	l.mu.Lock()
	answers := l.by[tool]
	n := l.sent[id]
	if len(answers) == 0 || n >= maxDecidesPerItem {
		l.mu.Unlock()
		return
	}
	perm := answers[min(n, len(answers)-1)]
	l.sent[id] = n + 1
	l.mu.Unlock()
	scope := perm.Scope
	if scope == "" {
		scope = wire.ScopeOnce
	}
	p.s.World.SendDecide(wire.CallContext{SessionID: ev.SessionID, TurnID: ev.TurnID}, secondConnection,
		[]wire.PlanDecision{{PlanItemID: id, Decision: perm.Decision, Scope: scope, CorrectedInput: perm.CorrectedInput}})
}

// PA-19: nothing was remembered from a refused answer: every call of the
// tool was asked about, whichever way the next decision reached the kernel.
func (p *planArea) askedAboutEveryCall(tool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ids := s.callIDsOf(tool)
	if len(ids) == 0 {
		return notReached("the model made no call to %q", tool)
	}
	asked := map[string]bool{}
	for _, a := range s.permissionItems(s.SessionID) {
		asked[a.item.ToolCallID] = true
	}
	for _, id := range ids {
		if !asked[id] {
			return fmt.Errorf("the call %s to %q was never asked about: the kernel decided it from an answer it had refused (or kept one it was told to hold once)", id, tool)
		}
	}
	return nil
}
