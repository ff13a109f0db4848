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

// maxAsks bounds how often one item is asked again after an answer the
// kernel had to refuse (an ALWAYS scope it cannot persist).
const maxAsks = 3

// Error event category of a refused ALWAYS answer.
const CategoryAlwaysUnsupported = "always_scope_unsupported"

// GateConfig sets a session's gate up.
type GateConfig struct {
	Policy        Evaluator
	Rules         []wire.PolicyRule
	Profile       string
	PersistAlways bool
	Store         Store // ALWAYS answers; used only with PersistAlways
	Frontend      Frontend
}

// Gate is one session's policy state: the rules plus remembered answers.
type Gate struct {
	cfg     GateConfig
	mu      sync.Mutex
	session map[[2]string]string // (provider, tool) → allow | deny
}

// NewGate makes a session's gate.
func NewGate(c GateConfig) *Gate {
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
// left to a human. The error is the context's, when the session ends while
// an ask is pending.
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
	for _, it := range plan.Items {
		host.Emit(g.cfg.Frontend, cc.SessionID, cc.TurnID, wire.EventPlanItem, host.KernelProducer, planItemRow(cc, it))
	}
	for _, i := range asks {
		r, err := g.ask(ctx, cc, plan.Items[i])
		if err != nil {
			return rulings, err
		}
		rulings[i] = r
	}
	return rulings, nil
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

func (g *Gate) ask(ctx context.Context, cc wire.CallContext, item wire.PlanItem) (Ruling, error) {
	for attempt := 1; ; attempt++ {
		res, err := g.cfg.Frontend.Permission(ctx, wire.PermissionParams{CallContext: cc, Items: []wire.PlanItem{item}})
		if err != nil {
			if ctx.Err() != nil {
				return Ruling{}, ctx.Err()
			}
			return Ruling{Reason: "denied: the permission request failed: " + err.Error()}, nil
		}
		d, ok := find(res, item.ID)
		if !ok {
			return Ruling{Reason: "denied: the frontend gave no decision for this item"}, nil
		}
		if d.Scope == wire.ScopeAlways && !g.cfg.PersistAlways {
			host.Emit(g.cfg.Frontend, cc.SessionID, cc.TurnID, wire.EventError, host.KernelProducer, map[string]any{
				"category":     CategoryAlwaysUnsupported,
				"plan_item_id": item.ID,
				"message":      "this kernel has no writable policy store, so an ALWAYS decision cannot be kept; answer with ONCE or SESSION",
			})
			if attempt < maxAsks {
				continue
			}
			return Ruling{Reason: "denied: no usable decision after " + item.Tool + " was asked " + strconv.Itoa(maxAsks) + " times"}, nil
		}
		var decision string
		switch {
		case strings.EqualFold(d.Decision, wire.DecisionAllow):
			decision = wire.PolicyAllow
		case strings.EqualFold(d.Decision, wire.DecisionDeny):
			decision = wire.PolicyDeny
		default:
			return Ruling{Reason: "denied: the frontend answered " + d.Decision}, nil
		}
		g.remember(d.Scope, item.Provider, item.Tool, decision)
		if decision == wire.PolicyDeny {
			return Ruling{Reason: "denied by the user"}, nil
		}
		return Ruling{Allowed: true, Input: d.CorrectedInput}, nil
	}
}

func (g *Gate) remember(scope, provider, tool, decision string) {
	switch scope {
	case wire.ScopeAlways:
		if g.cfg.Store != nil {
			g.cfg.Store.Remember(g.cfg.Profile, provider, tool, decision)
		}
		fallthrough // an ALWAYS answer holds for this session as well
	case wire.ScopeSession:
		g.mu.Lock()
		g.session[[2]string{provider, tool}] = decision
		g.mu.Unlock()
	}
}

func (g *Gate) remembered(provider, tool string) (decision, by string, ok bool) {
	g.mu.Lock()
	d, ok := g.session[[2]string{provider, tool}]
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
