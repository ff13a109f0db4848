package mutants

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/hooks"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/plangate"
	"github.com/agentconform/conform/spec/wire"
)

// Legal variants of hook dispatch and the plan/apply gate: correct kernels
// that read an open point of the spec another way. The suite must blame
// none of them.
func init() {
	registerVariant(
		Variant{Name: "plan/plan-mode-by-schema-removal-only",
			Reading: "plan mode only leaves resource specs out of the request (PA-04); a forged resource call the model makes anyway goes through the plan/apply gate like any call and runs if policy allows it (the digest: record the reaction, do not judge it)",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = wrapStep(p.Steps, loop.StepSplit, func(t *loop.Turn) error {
					if !t.Config().PlanMode {
						return nil
					}
					for _, c := range t.ToolCalls() {
						if c.Schema != nil && c.Kind() == wire.KindResource && c.Result != nil && !c.Executed &&
							c.Result.ErrorCategory == wire.ToolErrPermissionDenied {
							c.Result = nil // back to the gate: the plan decides it
						}
					}
					return nil
				})
				return p
			}},
		Variant{Name: "hooks/vetoes-only-at-plan-ready",
			Reading: "a veto subscription at any point but plan-ready is refused when the config loads (A-20: only plan-ready is treated as carrying a veto)",
			Apply: func(p loop.Parts) loop.Parts {
				p.Hooks = vetoOnlyAtPlanReady{hooks.Standard{}}
				return p
			},
			Options: []refkernel.Option{declare(readingVetoPoints, wire.PointPlanReady)}},
		Variant{Name: "hooks/policy-deny-ends-plan-ready-chain",
			Reading: "the policy runs first in the plan-ready chain and its denial of any item ends the chain: no subscriber sees that plan, allowed items still apply (A-21's other reading, declared)",
			Apply: func(p loop.Parts) loop.Parts {
				p.Hooks = policyDenyEndsChain{hooks.Standard{}}
				return p
			},
			Options: []refkernel.Option{declare(readingPolicyDenyEnds, "yes")}},
		Variant{Name: "plan/preview-deadline-10s",
			Reading: "a tool/preview is given 10 s before the item goes on without one (PA-12: the spec names no value), declared as plan.preview_timeout_ms",
			Options: []refkernel.Option{refkernel.WithPreviewTimeout(10 * time.Second)},
			Timeout: 30 * time.Second},
		Variant{Name: "plan/refused-decision-waits-for-another",
			Reading: "after refusing a decision (an ALWAYS it cannot persist, an invalid corrected input) the kernel does not ask again: the item stays pending until a usable decision comes by frontend/decide (A-37, declared as plan.refused_decision = pending)",
			Apply: func(p loop.Parts) loop.Parts {
				p.Answers = waitAfterRefusal{}
				return p
			},
			Options: []refkernel.Option{declare(readingRefusedDecision, "pending")}},
		Variant{Name: "hooks/pre-model-call-transform-kept-in-history",
			Reading: "what the pre-model-call transforms make of the messages stays in the session's history, so later turns build on it (issue 16: real loops differ; the spec leaves it open)",
			Apply: func(p loop.Parts) loop.Parts {
				p.Hooks = &keptHistory{Dispatcher: hooks.Standard{}, last: map[string]kept{}}
				return p
			}},
	)
}

// Readings the variants declare (PROTOCOL.md §15).
const (
	readingVetoPoints      = "hooks.veto_points"
	readingPolicyDenyEnds  = "hooks.policy_deny_ends_chain"
	readingRefusedDecision = "plan.refused_decision"
)

// waitAfterRefusal keeps a refused item pending without asking again.
type waitAfterRefusal struct{ plangate.StandardAnswers }

func (waitAfterRefusal) WaitAfterRefusal() bool { return true }

// declare adds one reading to the kernel's initialize answer.
func declare(key, value string) refkernel.Option {
	return refkernel.WithDeclaration(func(r *wire.InitializeResult) {
		if r.Readings == nil {
			r.Readings = map[string]string{}
		}
		r.Readings[key] = value
	})
}

// vetoOnlyAtPlanReady refuses veto subscriptions outside plan-ready.
type vetoOnlyAtPlanReady struct{ hooks.Dispatcher }

func (d vetoOnlyAtPlanReady) Validate(h wire.Hooks) error {
	for _, s := range h.Subscribers {
		if s.Mode == wire.ModeVeto && s.Point != wire.PointPlanReady {
			return fmt.Errorf("hook %q: this kernel accepts veto subscribers only at %s, not at %s", s.ID, wire.PointPlanReady, s.Point)
		}
	}
	return d.Dispatcher.Validate(h)
}

// policyDenyEndsChain skips the plan-ready chain when the policy denied an
// item of the plan: the policy is the chain's first member, and a denial
// ends it.
type policyDenyEndsChain struct{ hooks.Dispatcher }

func (d policyDenyEndsChain) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	if req.Point == wire.PointPlanReady && req.Payload.Plan != nil &&
		slices.ContainsFunc(req.Payload.Plan.Items, func(it wire.PlanItem) bool { return it.Decision == wire.PolicyDeny }) {
		req.Payload.Variant = req.Point
		return hooks.Outcome{Payload: req.Payload}, nil
	}
	return d.Dispatcher.Dispatch(ctx, env, req)
}

// keptHistory keeps what the pre-model-call transforms returned in the
// session's history: each turn's chain starts from the previous turn's
// transformed messages followed by what the history gained since.
type keptHistory struct {
	hooks.Dispatcher
	mu   sync.Mutex
	last map[string]kept // by session
}

type kept struct{ in, out []wire.Message }

func (k *keptHistory) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	if req.Point != wire.PointPreModelCall {
		return k.Dispatcher.Dispatch(ctx, env, req)
	}
	sid := req.CallContext.SessionID
	in := req.Payload.Messages
	k.mu.Lock()
	prev, ok := k.last[sid]
	k.mu.Unlock()
	if ok && len(in) >= len(prev.in) && sameMessages(in[:len(prev.in)], prev.in) {
		req.Payload.Messages = append(slices.Clone(prev.out), in[len(prev.in):]...)
	}
	out, err := k.Dispatcher.Dispatch(ctx, env, req)
	if err == nil {
		k.mu.Lock()
		k.last[sid] = kept{in: in, out: out.Payload.Messages}
		k.mu.Unlock()
	}
	return out, err
}

func sameMessages(a, b []wire.Message) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
