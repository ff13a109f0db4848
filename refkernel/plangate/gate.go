package plangate

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/spec/wire"
)

// Frontend is the part of the Host the ask flow needs.
type Frontend interface {
	Permission(ctx context.Context, p wire.PermissionParams) (wire.PermissionResult, error)
	host.Notifier
}

// MaxAsks bounds how often one item is asked again after answers the
// kernel had to refuse (an ALWAYS scope it cannot persist, a corrected
// input that fails the tool's input_schema), so a frontend stuck on a bad
// answer cannot keep the session spinning; every refusal is reported
// (reading plan.max_asks).
const MaxAsks = 3

// Error event categories of refused decisions.
const (
	CategoryAlwaysUnsupported = "always_scope_unsupported"
	CategoryUnknownScope      = "unknown_scope"
	CategoryInvalidCorrection = "invalid_corrected_input"
)

// GateConfig sets a session's gate up.
type GateConfig struct {
	Policy        Evaluator
	Answers       Answers // default StandardAnswers
	Breaker       Breaker // default StandardBreaker
	Arbiter       Arbiter // late frontend decisions; default StandardArbiter
	Rules         []wire.PolicyRule
	Profile       string
	PersistAlways bool
	Store         Store // ALWAYS answers; used only with PersistAlways
	Frontend      Frontend
	// Tools are the session's tools by name: a corrected input is checked
	// against its tool's input_schema.
	Tools map[string]wire.ToolSchema
	// CircuitBreaker holds the breaker's thresholds; nil means no breaker.
	CircuitBreaker *wire.CircuitBreaker
}

// Gate is one session's policy state: the rules plus remembered answers and
// the decision history of the circuit breaker.
type Gate struct {
	cfg     GateConfig
	mu      sync.Mutex
	session map[[2]string]string // (provider, tool) → allow | deny
	history []bool               // circuit breaker: true = denied, oldest first

	dmu     sync.Mutex          // guards items: every frontend decision (decide.go)
	items   map[string]*tracked // plan item id → its decision state
	decided chan struct{}       // closed when an item is decided (knobs.go)
	calls   map[string]*waiting // interactive call id → its answer state (interactive.go)
}

// NewGate makes a session's gate.
func NewGate(c GateConfig) *Gate {
	if c.Answers == nil {
		c.Answers = StandardAnswers{}
	}
	if c.Breaker == nil {
		c.Breaker = StandardBreaker{}
	}
	if c.Arbiter == nil {
		c.Arbiter = StandardArbiter{}
	}
	return &Gate{cfg: c, session: map[[2]string]string{}}
}

// Ruling is the outcome for one plan item.
type Ruling struct {
	Allowed bool
	Reason  string          // why it was denied
	Input   json.RawMessage // corrected input from the frontend, if any
}

// Precheck decides a data_source or interactive call and reports a
// downgraded ask.
func (g *Gate) Precheck(cc wire.CallContext, c Call) Verdict {
	v := g.cfg.Policy.Precheck(g.cfg.Rules, c)
	if v.Downgraded {
		host.Emit(g.cfg.Frontend, cc.SessionID, cc.TurnID, wire.EventAskDowngrade, host.KernelProducer, map[string]any{
			"call_id":      c.ID,
			"tool_call_id": c.ID,
			"tool":         c.Tool,
			"kind":         c.Kind,
			"rule":         ruleOrDefault(v),
		})
	}
	return v
}

// Decide evaluates every item of the plan, writing decision and decided_by
// into it, reports the items, and asks the frontend about the ones policy
// left to a human: all of them in one frontend/permission request (PA-02),
// each decided on its own. The error is the context's, when the session
// ends while an ask is pending.
func (g *Gate) Decide(ctx context.Context, cc wire.CallContext, plan *wire.Plan) ([]Ruling, error) {
	rulings := make([]Ruling, len(plan.Items))
	var asks []int
	for i := range plan.Items {
		it := &plan.Items[i]
		v := g.cfg.Policy.Evaluate(g.cfg.Rules, Call{ID: it.ToolCallID, Provider: it.Provider, Tool: it.Tool, Kind: it.Kind})
		it.Decision, it.DecidedBy = v.Decision, v.DecidedBy
		if v.Decision == wire.PolicyAsk {
			if d, by, ok := g.remembered(it.Provider, it.Tool); ok {
				it.Decision, it.DecidedBy = d, by
			}
		}
		switch it.Decision {
		case wire.PolicyAllow:
			rulings[i].Allowed = true
		case wire.PolicyAsk:
			asks = append(asks, i)
		default:
			rulings[i].Reason = denial(v, it)
		}
	}
	asked := map[int]bool{}
	for _, i := range asks {
		asked[i] = true
	}
	g.track(cc, plan.Items, rulings, asked) // decide.go
	for _, it := range plan.Items {
		host.Emit(g.cfg.Frontend, cc.SessionID, cc.TurnID, wire.EventPlanItem, host.KernelProducer, planItemRow(cc, it))
	}
	for attempt := 1; ; attempt++ {
		// Items another frontend connection decided meanwhile are not asked
		// (again).
		if asks = g.pending(plan.Items, asks); len(asks) == 0 {
			break
		}
		items := make([]wire.PlanItem, len(asks))
		for k, i := range asks {
			items[k] = plan.Items[i]
		}
		res, err := g.cfg.Frontend.Permission(ctx, wire.PermissionParams{CallContext: cc, Items: items})
		if err != nil {
			if ctx.Err() != nil {
				g.close(plan.Items, rulings)
				return rulings, ctx.Err()
			}
			for _, i := range asks {
				g.settle(plan.Items[i].ID, Ruling{Reason: "denied: the permission request failed: " + err.Error()})
			}
			break
		}
		var again, wait []int
		for _, i := range asks {
			it := plan.Items[i]
			d, ok := find(res, it.ID)
			if !ok {
				g.settle(it.ID, Ruling{Reason: "denied: the frontend gave no decision for this item"})
				continue
			}
			out := g.offer(cc.SessionID, wire.ConnectionPrimary, d)
			switch {
			case out.Accepted, out.Category == wire.FrontendErrInvalidClientEvent:
				// decided now, or earlier by another connection
			case attempt < MaxAsks && g.waitsAfterRefusal():
				wait = append(wait, i) // refused: still pending, not asked again
			case attempt < MaxAsks:
				again = append(again, i) // refused: still pending, asked again
			default:
				g.settle(it.ID, Ruling{Reason: "denied: no usable decision after " + it.Tool + " was asked " + strconv.Itoa(MaxAsks) + " times"})
			}
		}
		if err := g.awaitDecided(ctx, plan.Items, wait); err != nil {
			g.close(plan.Items, rulings)
			return rulings, err
		}
		asks = again
	}
	g.close(plan.Items, rulings) // the rulings as decided, by whichever connection came first
	return rulings, nil
}

// answer applies one frontend decision to its item. A decision the kernel
// must refuse is reported as an error event naming the item and leaves the
// item pending (refusal is its category); it is neither coerced nor taken
// as a deny.
func (g *Gate) answer(cc wire.CallContext, it wire.PlanItem, d wire.PlanDecision) (r Ruling, refusal string) {
	refuse := func(category, msg string) (Ruling, string) {
		host.Emit(g.cfg.Frontend, cc.SessionID, cc.TurnID, wire.EventError, host.KernelProducer, map[string]any{
			"category":     category,
			"plan_item_id": it.ID,
			"tool_call_id": it.ToolCallID,
			"message":      msg,
		})
		return Ruling{}, category
	}
	var decision string
	switch {
	case strings.EqualFold(d.Decision, wire.DecisionAllow):
		decision = wire.PolicyAllow
	case strings.EqualFold(d.Decision, wire.DecisionDeny):
		decision = wire.PolicyDeny
	default:
		return Ruling{Reason: "denied: the frontend answered " + d.Decision}, ""
	}
	life := g.lifetime(decision, d.Scope)
	if life == LifetimeRefused {
		if d.Scope == wire.ScopeAlways {
			return refuse(CategoryAlwaysUnsupported, "this kernel has no writable policy store, so an ALWAYS decision cannot be kept; answer with ONCE or SESSION")
		}
		return refuse(CategoryUnknownScope, "unknown decision scope "+strconv.Quote(d.Scope))
	}
	var input json.RawMessage
	if decision == wire.PolicyAllow && len(d.CorrectedInput) > 0 && string(d.CorrectedInput) != "null" {
		if err := g.cfg.Answers.CheckCorrection(g.cfg.Tools[it.Tool].InputSchema, d.CorrectedInput); err != nil {
			return refuse(CategoryInvalidCorrection, err.Error())
		}
		input = d.CorrectedInput
	}
	g.remember(life, it.Provider, it.Tool, decision)
	if decision == wire.PolicyDeny {
		return Ruling{Reason: "denied by the user"}, ""
	}
	return Ruling{Allowed: true, Input: input}, ""
}

// planItemRow is a plan_items row: the item's fields, its id also under
// plan_item_id, and the turn.
func planItemRow(cc wire.CallContext, it wire.PlanItem) map[string]any {
	row := map[string]any{
		"id":           it.ID,
		"plan_item_id": it.ID,
		"turn_id":      cc.TurnID,
		"tool_call_id": it.ToolCallID,
		"provider":     it.Provider,
		"tool":         it.Tool,
		"kind":         it.Kind,
		"risk":         it.Risk,
		"description":  it.Description,
		"input":        it.Input,
		"decision":     it.Decision,
		"decided_by":   it.DecidedBy,
	}
	if it.Preview != nil {
		row["preview"] = *it.Preview
	}
	return row
}

func denial(v Verdict, it *wire.PlanItem) string {
	switch it.DecidedBy {
	case DecidedBySession, DecidedByAlways:
		return "denied: the user denied " + it.Tool + " for the rest of the session"
	}
	return DenialText(v, it.Kind)
}

func (g *Gate) remember(life Lifetime, provider, tool, decision string) {
	switch life {
	case LifetimeAlways:
		if g.cfg.Store != nil {
			g.cfg.Store.Remember(g.cfg.Profile, provider, tool, decision)
		}
		fallthrough // an ALWAYS answer holds for this session as well
	case LifetimeSession:
		g.mu.Lock()
		g.session[g.memoryKey(provider, tool)] = decision
		g.mu.Unlock()
	}
}

func (g *Gate) remembered(provider, tool string) (decision, by string, ok bool) {
	g.mu.Lock()
	d, ok := g.session[g.memoryKey(provider, tool)]
	g.mu.Unlock()
	if ok {
		return d, DecidedBySession, true
	}
	if g.cfg.PersistAlways && g.cfg.Store != nil {
		if d, ok := g.cfg.Store.Lookup(g.cfg.Profile, provider, tool); ok {
			return d, DecidedByAlways, true
		}
	}
	return "", "", false
}

// Record adds one call's decision to the circuit breaker's history: denied,
// or allowed (it ran).
func (g *Gate) Record(denied bool) {
	limit := historyLimit(g.cfg.CircuitBreaker)
	if limit == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.history = append(g.history, denied)
	if n := len(g.history) - limit; n > 0 {
		g.history = append(g.history[:0], g.history[n:]...)
	}
}

// Tripped asks the circuit breaker about the history so far.
func (g *Gate) Tripped() (Trip, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cfg.Breaker.Check(g.cfg.CircuitBreaker, g.history)
}

func find(res wire.PermissionResult, id string) (wire.PlanDecision, bool) {
	for _, d := range res.Decisions {
		if d.PlanItemID == id {
			return d, true
		}
	}
	return wire.PlanDecision{}, false
}

func ruleOrDefault(v Verdict) string {
	if v.Rule == "" {
		return DecidedByDefault
	}
	return v.Rule
}
