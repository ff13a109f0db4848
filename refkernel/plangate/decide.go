package plangate

import (
	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/spec/wire"
)

// Several frontend connections (PA-16, PROTOCOL.md §6.7). The answer to the
// kernel's own frontend/permission comes from the primary connection; other
// connections send frontend/decide (Gate.Submit). Every decision, whichever
// connection sent it, goes through Gate.offer, under one lock, so that
// "first" is simply the first decision offer sees for a pending item.
//
// Reading (plan.late_permission_answer): a frontend/decide that decides an
// item while the kernel's frontend/permission about it is unanswered
// decides it at once, but the kernel keeps waiting for the permission
// answer (it sends no $/cancelRequest) and rejects that answer's decision
// for the item as a late one: a frontend_error event naming connection
// "primary". Waiting keeps the ask flow one synchronous request, and the
// primary's late answer is reported rather than lost.

// Late is a decision that arrives for an item already decided.
type Late struct {
	Item wire.PlanItem
	// First is who decided the item: a connection name, or "policy" for an
	// item the rules or a remembered scope decided.
	First string
	// Connection is the late decision's sender ("primary" for the answer to
	// frontend/permission).
	Connection string
	Decision   wire.PlanDecision
	// Open: the gate still holds the item's ruling (the plan-ready step has
	// not handed it to the apply step yet), so it could still change.
	Open bool
	// Interactive: the late one is an answer to an interactive call
	// (interactive.go); Item then carries only the call id, tool and kind,
	// and Response the late answer.
	Interactive bool
	Response    string
}

// LateAction is what the gate does with a late decision.
type LateAction int

// What the gate can do with a late decision.
const (
	// LateReject: the reference. The sender gets INVALID_CLIENT_EVENT and a
	// frontend_error event records it; the first decision stands.
	LateReject LateAction = iota
	// LateReplace: the late decision replaces the first one while the item's
	// ruling is still open (last decision wins), and is reported accepted.
	LateReplace
	// LateIgnore: the late decision is acknowledged as accepted and has no
	// effect; nothing records it.
	LateIgnore
)

// DecidedByPolicy is Late.First for an item no frontend decided.
const DecidedByPolicy = "policy"

// Arbiter is the swappable part that settles late decisions.
type Arbiter interface {
	Late(l Late) LateAction
}

// StandardArbiter is the reference: the first decision wins, every later
// one is rejected.
type StandardArbiter struct{}

// Late implements Arbiter.
func (StandardArbiter) Late(Late) LateAction { return LateReject }

// tracked is one plan item the gate knows, from the moment its plan is
// evaluated.
type tracked struct {
	item    wire.PlanItem
	cc      wire.CallContext
	decided bool
	by      string // who decided it
	ruling  Ruling
	open    bool // Decide has not returned its ruling yet
}

// track registers a plan's items: the asked ones pending, the others
// decided by policy. It runs before the plan_item rows go out, so no
// frontend can name an item the gate does not know yet.
func (g *Gate) track(cc wire.CallContext, items []wire.PlanItem, rulings []Ruling, asked map[int]bool) {
	g.dmu.Lock()
	defer g.dmu.Unlock()
	if g.items == nil {
		g.items = map[string]*tracked{}
	}
	for i, it := range items {
		t := &tracked{item: it, cc: cc, open: true}
		if !asked[i] {
			t.decided, t.by, t.ruling = true, DecidedByPolicy, rulings[i]
		}
		g.items[it.ID] = t
	}
}

// pending keeps the indexes whose items no decision has decided yet.
func (g *Gate) pending(items []wire.PlanItem, idx []int) []int {
	g.dmu.Lock()
	defer g.dmu.Unlock()
	var out []int
	for _, i := range idx {
		if t := g.items[items[i].ID]; t != nil && !t.decided {
			out = append(out, i)
		}
	}
	return out
}

// settle decides a still-pending item on the kernel's own account (the
// permission request failed, no usable answer came); an item a frontend
// decided meanwhile keeps that decision.
func (g *Gate) settle(id string, r Ruling) {
	g.dmu.Lock()
	defer g.dmu.Unlock()
	if t := g.items[id]; t != nil && !t.decided {
		t.decided, t.by, t.ruling = true, "kernel", r
		g.signalLocked()
	}
}

// close hands the plan's rulings over: every item's ruling is final from
// now on, and an item left undecided (the session ended during the ask) is
// no longer pending.
func (g *Gate) close(items []wire.PlanItem, rulings []Ruling) {
	g.dmu.Lock()
	defer g.dmu.Unlock()
	for i, it := range items {
		t := g.items[it.ID]
		if t == nil {
			continue
		}
		if !t.decided {
			t.decided, t.by, t.ruling = true, "kernel", Ruling{Reason: "denied: the session ended before a decision came"}
		}
		t.open = false
		rulings[i] = t.ruling
	}
}

// offer applies one decision from one connection: the first usable
// decision for a pending item decides it; a decision the kernel refuses
// (ALWAYS without a store, an invalid corrected input) leaves the item
// pending; a decision for an item already decided, or for no item the gate
// knows, goes to the Arbiter.
func (g *Gate) offer(session, conn string, d wire.PlanDecision) wire.DecisionOutcome {
	g.dmu.Lock()
	defer g.dmu.Unlock()
	out := wire.DecisionOutcome{PlanItemID: d.PlanItemID}
	t := g.items[d.PlanItemID]
	if t == nil {
		cc := wire.CallContext{SessionID: session}
		return g.reject(cc, conn, d, "", "no plan item "+d.PlanItemID+" awaits a decision in this session")
	}
	if !t.decided {
		r, refusal := g.answer(t.cc, t.item, d)
		if refusal != "" {
			out.Category, out.Message = refusal, "the decision was refused; the item is still pending"
			return out
		}
		t.decided, t.by, t.ruling = true, conn, r
		g.signalLocked()
		out.Accepted = true
		return out
	}
	switch g.cfg.Arbiter.Late(Late{Item: t.item, First: t.by, Connection: conn, Decision: d, Open: t.open}) {
	case LateIgnore:
		out.Accepted = true
		return out
	case LateReplace:
		if t.open {
			if r, refusal := g.answer(t.cc, t.item, d); refusal == "" {
				t.by, t.ruling = conn, r
			}
		}
		out.Accepted = true
		return out
	}
	return g.reject(t.cc, conn, d, t.item.ToolCallID, "plan item "+d.PlanItemID+" was already decided by "+t.by)
}

// reject reports a late or stray decision: INVALID_CLIENT_EVENT to the
// sender and a frontend_error event.
func (g *Gate) reject(cc wire.CallContext, conn string, d wire.PlanDecision, callID, msg string) wire.DecisionOutcome {
	payload := map[string]any{
		"connection":   conn,
		"plan_item_id": d.PlanItemID,
		"decision":     d.Decision,
		"category":     wire.FrontendErrInvalidClientEvent,
		"message":      msg,
	}
	if callID != "" {
		payload["tool_call_id"] = callID
	}
	host.Emit(g.cfg.Frontend, cc.SessionID, cc.TurnID, wire.EventFrontendError, host.KernelProducer, payload)
	return wire.DecisionOutcome{PlanItemID: d.PlanItemID, Category: wire.FrontendErrInvalidClientEvent, Message: msg}
}

// Submit serves frontend/decide: a frontend connection other than the
// primary decides items of the session, each decision on its own, in the
// order sent.
func (g *Gate) Submit(session, conn string, ds []wire.PlanDecision) []wire.DecisionOutcome {
	out := make([]wire.DecisionOutcome, 0, len(ds))
	for _, d := range ds {
		out = append(out, g.offer(session, conn, d))
	}
	return out
}
