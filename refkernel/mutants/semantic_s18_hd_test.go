package mutants

import (
	"context"

	"github.com/agentconform/conform/refkernel/hooks"
	"github.com/agentconform/conform/spec/wire"
)

// A veto's DENY taken for its failure (HD-14, PROTOCOL.md §7.2 and §8.4):
// the hook_error event records a subscriber that failed, and a DENY, with
// or without its optional reason, is a veto's answer. Two ways loops get
// it wrong, both still denying the call as they should:
//
//   - every answer but ALLOW goes down the veto's failure path, which
//     reports a hook_error (VETO_FAILED) before it denies;
//   - a DENY without a reason is taken for a malformed answer: an
//     INVALID_RESPONSE hook_error, then the deny a malformed veto answer
//     counts as.
//
// Both passed HD-14 while its scenarios had hook_errors only of failing
// subscribers; the "DENY is its answer" scenario of commit 2b92be4 kills
// them (the second only by its example without a reason).
func init() {
	register(
		Mutant{Name: "semantic/s18-veto-deny-reported-as-failure", Targets: []string{"HD-14"},
			Breaks: "a veto subscriber's DENY is acted on and also reported with a hook_error (VETO_FAILED) naming the subscriber, like a veto that failed",
			Apply:  withChain(denyReporting{Dispatcher: hooks.Standard{}})},
		Mutant{Name: "semantic/s18-veto-deny-without-reason-invalid", Targets: []string{"HD-14"},
			Breaks: "a veto subscriber's DENY without a reason is reported as an INVALID_RESPONSE hook_error (and counts as a deny); a DENY with a reason is not",
			Apply:  withChain(denyReporting{Dispatcher: hooks.Standard{}, onlyWithoutReason: true})},
	)
}

// denyReporting reports the veto answers it takes for failures with a
// hook_error, then lets the reference dispatcher deny as usual.
type denyReporting struct {
	hooks.Dispatcher
	onlyWithoutReason bool
}

func (d denyReporting) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	inner := env
	inner.Host = denyReporter{Caller: env.Host, env: env, req: req, onlyWithoutReason: d.onlyWithoutReason}
	return d.Dispatcher.Dispatch(ctx, inner, req)
}

type denyReporter struct {
	hooks.Caller
	env               hooks.Env
	req               hooks.Request
	onlyWithoutReason bool
}

func (r denyReporter) Hook(ctx context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
	res, err := r.Caller.Hook(ctx, p)
	if err != nil || p.Mode != wire.ModeVeto || res.Outcome != wire.OutcomeVeto || res.Decision != wire.DecisionDeny {
		return res, err
	}
	sub := wire.Subscriber{ID: p.Subscriber, Point: p.Point, Mode: p.Mode}
	switch {
	case !r.onlyWithoutReason:
		hooks.ReportFailure(r.env, r.req, sub, wire.HookErrVetoFailed, "veto subscriber did not allow: "+res.Reason)
	case res.Reason == "":
		hooks.ReportFailure(r.env, r.req, sub, wire.HookErrInvalidResponse, "veto subscriber answered DENY without a reason")
	}
	return res, err
}
