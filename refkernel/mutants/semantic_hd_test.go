package mutants

import (
	"context"
	"slices"
	"strings"

	"github.com/agentconform/conform/refkernel/hooks"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// Semantic mutants of the hook area (issue 29): chains as dispatchers are
// really written wrong, where the middle of a chain differs from its ends.
//
//   - the request instead of the outcome: each transform, or each
//     observer, is sent the payload the chain started with rather than the
//     one the subscribers before it produced (HD-01, HD-09);
//   - the wrong member named: a hook_error names the point's first
//     subscriber, whichever one failed (HD-14);
//   - a setting read from the wrong member: every subscriber of a point
//     gets the first subscriber's timeout_ms (HD-05);
//   - one side of a condition: a failing transform aborts the chain at
//     pre-model-call only, and elsewhere the chain carries on (HD-03).
func init() {
	register(
		Mutant{Name: "semantic/transforms-see-the-request", Targets: []string{"HD-01", "HD-09"},
			Breaks: "each transform is sent the payload the chain started with, not the one the transforms before it produced; the last transform's answer wins",
			Apply:  withChain(chain{transformsSeeRequest: true})},
		Mutant{Name: "semantic/observers-see-the-request", Targets: []string{"HD-01", "HD-09"},
			Breaks: "observers are sent the payload the chain started with, not the one the transforms before them produced",
			Apply:  withChain(chain{observersSeeRequest: true})},
		Mutant{Name: "semantic/hook-error-names-first-subscriber", Targets: []string{"HD-03", "HD-14"},
			Breaks: "a hook_error names the point's first subscriber as the one that failed, whichever one did",
			Apply:  withChain(chain{errorNamesFirst: true})},
		Mutant{Name: "semantic/timeout-of-first-subscriber", Targets: []string{"HD-05"},
			Breaks: "every subscriber of a point gets the first subscriber's timeout_ms (or the default when it has none)",
			Apply:  withChain(chain{timeoutOfFirst: true})},
		Mutant{Name: "semantic/transform-aborts-only-pre-model", Targets: []string{"HD-03"},
			Breaks: "a failing transform aborts the chain at pre-model-call only; at every other point the chain carries on with the payload it had",
			Apply:  withChain(chain{abortOnlyPreModel: true})},
	)
}

func withChain(c hooks.Dispatcher) func(loop.Parts) loop.Parts {
	return func(p loop.Parts) loop.Parts {
		p.Hooks = c
		return p
	}
}

// State kept for the root only (issue 29): a child session's chains are
// dispatched by a simpler dispatcher that groups subscribers by mode, the
// way a loop that builds a sub-agent's hook runner separately does. Only
// a chain checked in a child shows it (HD-01, tree side).
func init() {
	register(Mutant{Name: "semantic/child-chains-grouped-by-mode", Targets: []string{"HD-01"},
		Breaks: "in child and grandchild sessions the subscribers of a point are dispatched grouped by mode (transforms, vetoes, observers), not in declaration order",
		Apply:  withChain(childGrouped{})})
}

type childGrouped struct{ hooks.Standard }

func (d childGrouped) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	if strings.Contains(req.CallContext.SessionID, "/") { // the reference names a child parent/cN
		return chain{groupByMode: true}.Dispatch(ctx, env, req)
	}
	return d.Standard.Dispatch(ctx, env, req)
}

// The other side of HD-14's condition (issue 29): a transform or veto call
// the kernel itself abandoned, because the session was cancelled while it
// was in flight, is reported as the subscriber's failure, the way a loop
// that takes every error of a hook call for the hook's does.
func init() {
	register(Mutant{Name: "semantic/abandoned-hook-call-reported", Targets: []string{"HD-14"},
		Breaks: "a transform or veto call the kernel abandoned on a cancel is reported with a hook_error, as if its subscriber had failed",
		Apply:  withChain(chain{abandonedIsFailure: true})})
}

// One side of PA-13's snapshot (issue 29): the plan-ready chain is sent
// the plan without the items' descriptions, the way a loop that hands its
// hooks a summary of the plan does; the permission request still carries
// them, so the asked side of the clause cannot tell.
func init() {
	register(Mutant{Name: "semantic/plan-ready-without-descriptions", Targets: []string{"PA-13"},
		Breaks: "the plan-ready payload's items carry no description; the permission request and the plan_item rows still do",
		Apply: func(p loop.Parts) loop.Parts {
			p.Hooks = undescribedPlan{p.Hooks}
			return p
		}})
}

type undescribedPlan struct{ hooks.Dispatcher }

func (d undescribedPlan) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	if req.Point == wire.PointPlanReady && req.Payload.Plan != nil {
		plan := wire.Plan{Items: slices.Clone(req.Payload.Plan.Items)}
		for i := range plan.Items {
			plan.Items[i].Description = ""
		}
		req.Payload.Plan = &plan
	}
	return d.Dispatcher.Dispatch(ctx, env, req)
}
