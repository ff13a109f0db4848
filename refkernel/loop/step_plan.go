package loop

import (
	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/plangate"
	"github.com/agentconform/conform/refkernel/trace"
	"github.com/agentconform/conform/spec/wire"
)

// stepBuildPlan is step 10: one item per undecided resource call.
func stepBuildPlan(t *Turn) error {
	s := t.Session
	var props []plangate.Proposal
	t.planCalls = nil
	for _, c := range t.pending(wire.KindResource) {
		props = append(props, plangate.Proposal{ToolCallID: c.Use.ID, Schema: *c.Schema, Input: c.Input})
		t.planCalls = append(t.planCalls, c)
	}
	t.Plan = plangate.Build(t.Ctx, s.host, t.CallContext, props, func() string { return s.ids("plan") }, s.previewTimeout)
	if t.Plan.Items == nil {
		t.Plan.Items = []wire.PlanItem{}
	}
	return nil
}

// stepPlanReady is step 11: the kernel's policy decides each item (asking
// the frontend where it must), then the plan-ready chain runs; a veto
// denies every resource item. Policy runs first and its denials do
// not stop the chain. The policy_chain span covers the whole step.
func stepPlanReady(t *Turn) error {
	s := t.Session
	ctx, span := s.tracer.Start(t.Ctx, wire.RolePolicyChain, "policy_chain", trace.Turn(t.ID))
	defer span.End()
	rulings, err := s.gate.Decide(ctx, t.CallContext, &t.Plan)
	if err != nil {
		return err
	}
	for i, r := range rulings {
		c := t.planCalls[i]
		if !r.Allowed {
			c.deny(r.Reason)
			continue
		}
		c.Allowed = true
		if len(r.Input) > 0 {
			c.Input = r.Input
		}
	}
	// The dispatch span hangs off the turn like every other hook point.
	plan := t.Plan
	out, err := s.dispatch(t.Ctx, t.CallContext, wire.PointPlanReady, wire.HookPayload{Plan: &plan})
	if err != nil {
		return err
	}
	if out.Denied {
		for _, c := range t.planCalls {
			if c.Allowed {
				c.Allowed = false
				c.deny(hookDenial(out))
			}
		}
	}
	return nil
}

// circuitBreaker feeds the turn's decisions to the denial circuit breaker
// in message order (every call denied by anyone counts as a denial, every
// call that ran as an allow; A-33) and reports a trip as a fired bound, so
// that it takes the same limit-reached path (PA-05). It is read at step 17,
// next to the bounds.
func (t *Turn) circuitBreaker() *bounds.Fired {
	g := t.Session.gate
	for _, c := range t.ToolCalls() {
		switch {
		case c.Schema == nil || c.Result == nil:
		case c.Executed:
			g.Record(false)
		case c.Result.ErrorCategory == wire.ToolErrPermissionDenied:
			g.Record(true)
		}
	}
	trip, ok := g.Tripped()
	if !ok {
		return nil
	}
	t.Session.emit(t.ID, wire.EventCircuitBreaker, map[string]any{"denials": trip.Denials, "tier": trip.Tier})
	return &bounds.Fired{Bound: bounds.CircuitBreaker, Status: plangate.BreakerStatus}
}
