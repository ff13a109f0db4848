package mutants

import (
	"context"
	"errors"
	"slices"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/agentconform/conform/refkernel/hooks"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/plangate"
	"github.com/agentconform/conform/refkernel/trace"
	"github.com/agentconform/conform/spec/wire"
)

// Mutants of hook dispatch (features/hook_*.feature). Most are one broken
// rule of chain, a compact dispatcher that follows the reference semantics
// except for the flag it is given; the rest wrap the reference dispatcher,
// its host or its tracer.
func init() {
	withChain := func(c chain) func(loop.Parts) loop.Parts {
		return func(p loop.Parts) loop.Parts {
			p.Hooks = c
			return p
		}
	}
	withHooks := func(d hooks.Dispatcher) func(loop.Parts) loop.Parts {
		return func(p loop.Parts) loop.Parts {
			p.Hooks = d
			return p
		}
	}
	register(
		Mutant{Name: "hooks/grouped-by-mode", Targets: []string{"HD-01"},
			Breaks: "subscribers are dispatched transforms first, then vetoes, then observers, instead of in declaration order",
			Apply:  withChain(chain{groupByMode: true})},
		Mutant{Name: "hooks/transform-output-ignored", Targets: []string{"HD-01"},
			Breaks: "the model request is built from the payload before the pre-model-call transforms",
			Apply:  withHooks(ignoreOutput{hooks.Standard{}})},
		Mutant{Name: "hooks/observe-error-aborts", Targets: []string{"HD-02", "HD-10"},
			Breaks: "an observer's error, crash, timeout or malformed answer ends the chain (a malformed answer is an INVALID_RESPONSE, which HD-10 says an observer's chain ignores)",
			Apply:  withChain(chain{observeErrorAborts: true})},
		Mutant{Name: "hooks/observe-answer-used", Targets: []string{"HD-02", "HD-10"},
			Breaks: "a payload an observer returns replaces the payload",
			Apply:  withChain(chain{observeAnswerUsed: true})},
		Mutant{Name: "hooks/transform-failure-carries-on", Targets: []string{"HD-03", "HD-10"},
			Breaks: "a failing transform is skipped: the chain and the turn go on with the payload it was given",
			Apply:  withChain(chain{transformCarriesOn: true})},
		Mutant{Name: "hooks/abort-not-passed-on", Targets: []string{"HD-03", "HD-09"},
			Breaks: "a failing transform stops the chain and is reported, but the turn goes on with the payload it had",
			Apply:  withHooks(swallowAbort{hooks.Standard{}})},
		Mutant{Name: "hooks/no-hook-error", Targets: []string{"HD-02", "HD-03", "HD-04", "HD-09", "HD-10", "HD-14"},
			Breaks: "subscriber failures are handled by mode but never reported: no hook_error, and no record of an observer's failure either (HD-02); HD-09 and HD-10 make an INVALID_RESPONSE a hook_error too",
			Apply:  withChain(chain{silent: true})},
		Mutant{Name: "hooks/veto-failure-allows", Targets: []string{"HD-04"},
			Breaks: "a veto that errors, crashes or times out counts as ALLOW",
			Apply:  withChain(chain{vetoFailureAllows: true})},
		Mutant{Name: "hooks/unspecified-allows", Targets: []string{"HD-10"},
			Breaks: "a veto answer that is not ALLOW or DENY (UNSPECIFIED, another outcome) counts as ALLOW",
			Apply:  withChain(chain{unfitVetoAllows: true})},
		Mutant{Name: "hooks/timeouts-not-enforced", Targets: []string{"HD-05"},
			Breaks: "the kernel waits for every subscriber however long it takes",
			Apply:  withChain(chain{noTimeouts: true})},
		Mutant{Name: "hooks/timeouts-a-quarter-long", Targets: []string{"HD-05"},
			Breaks: "each subscriber is given up after a quarter of its announced timeout",
			Apply:  withChain(chain{timeoutDivisor: 4})},
		Mutant{Name: "hooks/override-ignored", Targets: []string{"HD-05"},
			Breaks: "a subscriber's own timeout is ignored; everyone gets the default",
			Apply:  withChain(chain{overrideIgnored: true})},
		Mutant{Name: "hooks/transforms-and-vetoes-in-parallel", Targets: []string{"HD-06"},
			Breaks: "adjacent transform and veto subscribers are dispatched together and their answers folded afterwards",
			Apply:  withChain(chain{parallelTV: true})},
		Mutant{Name: "hooks/observers-one-at-a-time", Targets: []string{"HD-07"},
			Breaks: "declares hooks.concurrent_observe but calls adjacent observers one after another",
			Apply:  withChain(chain{sequentialObserve: true})},
		Mutant{Name: "hooks/third-party-veto-skipped", Targets: []string{"HD-08"},
			Breaks: "declares hooks.third_party_veto but never dispatches a third-party veto subscriber",
			Apply:  withHooks(skipThirdParty{hooks.Standard{}})},
		Mutant{Name: "hooks/immutable-change-accepted", Targets: []string{"HD-09"},
			Breaks: "a transform answer is used as it comes: other fields, other points and other variants are not checked",
			Apply:  withChain(chain{acceptAnyTransform: true})},
		Mutant{Name: "hooks/deny-does-not-short-circuit", Targets: []string{"HD-11"},
			Breaks: "after a deny the remaining subscribers of the point are still dispatched",
			Apply:  withChain(chain{noShortCircuit: true})},
		Mutant{Name: "policy/bypassed", Targets: []string{"HD-12"},
			Breaks: "the kernel's policy allows every plan item without naming a rule (left to hook subscribers)",
			Apply: func(p loop.Parts) loop.Parts {
				p.Policy = allowAll{}
				return p
			}},
		Mutant{Name: "hooks/policy-as-hook", Targets: []string{"HD-12"},
			Breaks: "the policy check is sent to the harness as a plan-ready hook/dispatch to a \"policy\" subscriber",
			Apply:  withHooks(policyAsHook{hooks.Standard{}})},
		Mutant{Name: "hooks/no-dispatch-span", Targets: []string{"HD-13"},
			Breaks: "a chain gets no hook_dispatch span; subscriber spans hang off the turn",
			Apply: func(p loop.Parts) loop.Parts {
				p.Tracer = dropRole(wire.RoleHookDispatch)
				return p
			}},
		Mutant{Name: "hooks/no-subscriber-spans", Targets: []string{"HD-13"},
			Breaks: "subscriber calls get no hook_subscriber span",
			Apply: func(p loop.Parts) loop.Parts {
				p.Tracer = dropRole(wire.RoleHookSubscribe)
				return p
			}},
		Mutant{Name: "hooks/span-per-subscriber", Targets: []string{"HD-13"},
			Breaks: "every subscriber call gets a hook_dispatch span of its own",
			Apply:  withChain(chain{spanPerSubscriber: true})},
		Mutant{Name: "hooks/dispatch-span-outside-turn", Targets: []string{"HD-13"},
			Breaks: "a chain's hook_dispatch span is a root span, outside its turn's span",
			Apply:  withChain(chain{detachedSpan: true})},
		Mutant{Name: "hooks/hook-error-by-kernel", Targets: []string{"HD-14"},
			Breaks: "hook_error events name the kernel as their producer instead of the subscriber",
			Apply:  withHooks(kernelProducer{hooks.Standard{}})},
		Mutant{Name: "hooks/observers-ahead-of-transform", Targets: []string{"HD-15"},
			Breaks: "the observers after a transform start together with it, on the payload before it",
			Apply:  withChain(chain{observersAhead: true})},
		Mutant{Name: "hooks/unsupported-point-accepted", Targets: []string{"HD-16"},
			Breaks: "a subscription at a point outside the plugin's supported points is accepted",
			Apply:  withHooks(ignoreSupported{hooks.Standard{}})},
		Mutant{Name: "hooks/context-assemble-as-hook", Targets: []string{"HD-17"},
			Breaks: "the pre-model-call subscribers are also sent a hook/dispatch for context-assemble",
			Apply:  withHooks(assembleAsHook{hooks.Standard{}})},
		Mutant{Name: "hooks/variant-mislabelled", Targets: []string{"HD-17"},
			Breaks: "post-apply payloads carry the plan-ready variant",
			Apply:  withHooks(mislabel{hooks.Standard{}})},
		Mutant{Name: "context/contributions-dropped", Targets: []string{"HD-17"},
			Breaks: "the context contributions never reach the model request",
			Apply: func(p loop.Parts) loop.Parts {
				steps := loop.DefaultSteps()
				for i, st := range steps {
					if st.Name == loop.StepContextAssemble {
						run := st.Run
						steps[i].Run = func(t *loop.Turn) error {
							err := run(t)
							t.Contributions = nil
							return err
						}
					}
				}
				p.Steps = steps
				return p
			}},
	)
}

// chain is a dispatcher with the reference semantics (one pass in
// declaration order, observe runs concurrent and awaited, transform and
// veto one at a time, failures by mode, spans, hook_error events) unless
// one of its flags breaks a rule.
type chain struct {
	groupByMode        bool
	observeErrorAborts bool
	observeAnswerUsed  bool
	transformCarriesOn bool
	silent             bool
	vetoFailureAllows  bool
	unfitVetoAllows    bool
	noTimeouts         bool
	timeoutDivisor     int
	overrideIgnored    bool
	parallelTV         bool
	sequentialObserve  bool
	acceptAnyTransform bool
	noShortCircuit     bool
	spanPerSubscriber  bool
	detachedSpan       bool
	observersAhead     bool
	// semantic mutants (semantic_hd_test.go)
	transformsSeeRequest bool
	observersSeeRequest  bool
	errorNamesFirst      bool
	timeoutOfFirst       bool
	abortOnlyPreModel    bool
	abandonedIsFailure   bool
}

func (chain) Validate(h wire.Hooks) error { return hooks.Validate(h) }

func turnAttrs(cc wire.CallContext, kv ...attribute.KeyValue) []attribute.KeyValue {
	if cc.TurnID != "" {
		kv = append(kv, trace.Turn(cc.TurnID))
	}
	return kv
}

func (c chain) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	req.Payload.Variant = req.Point
	switch {
	case c.detachedSpan:
		// The span starts from nothing; the calls keep the session's
		// context but hang their spans off the detached one.
		pctx, span := env.Tracer.Start(context.Background(), wire.RoleHookDispatch, "hook "+req.Point, turnAttrs(req.CallContext)...)
		defer span.End()
		ctx = oteltrace.ContextWithSpan(ctx, oteltrace.SpanFromContext(pctx))
	case !c.spanPerSubscriber:
		var span trace.Span
		ctx, span = env.Tracer.Start(ctx, wire.RoleHookDispatch, "hook "+req.Point, turnAttrs(req.CallContext)...)
		defer span.End()
	}
	subs := hooks.ForPoint(req.Hooks, req.Point)
	if c.noTimeouts {
		// Announce each subscriber's timeout as usual, but wait an hour.
		announced := map[string]int{}
		for i := range subs {
			announced[subs[i].ID] = int(hooks.Timeout(subs[i], req.Hooks.DefaultTimeoutMS).Milliseconds())
			subs[i].TimeoutMS = 3_600_000
		}
		env.Host = announcer{env.Host, announced}
	}
	if c.timeoutDivisor > 0 {
		announced := map[string]int{}
		for i := range subs {
			ms := int(hooks.Timeout(subs[i], req.Hooks.DefaultTimeoutMS).Milliseconds())
			announced[subs[i].ID] = ms
			subs[i].TimeoutMS = max(1, ms/c.timeoutDivisor)
		}
		env.Host = announcer{env.Host, announced}
	}
	if c.timeoutOfFirst && len(subs) > 0 {
		for i := range subs {
			subs[i].TimeoutMS = subs[0].TimeoutMS
		}
	}
	if c.overrideIgnored {
		for i := range subs {
			subs[i].TimeoutMS = 0
		}
	}
	if c.groupByMode {
		rank := map[string]int{wire.ModeTransform: 0, wire.ModeVeto: 1, wire.ModeObserve: 2}
		slices.SortStableFunc(subs, func(a, b wire.Subscriber) int { return rank[a.Mode] - rank[b.Mode] })
	}
	out := hooks.Outcome{Payload: req.Payload}
	for i := 0; i < len(subs); {
		j := i + 1
		for j < len(subs) && (subs[j].Mode == wire.ModeObserve) == (subs[i].Mode == wire.ModeObserve) {
			j++
		}
		run := subs[i:j]
		var stop bool
		var err error
		switch {
		case run[0].Mode == wire.ModeObserve:
			stop = c.observe(ctx, env, req, run, &out)
		case c.observersAhead && j < len(subs):
			// Start the observers that follow this run now, on the
			// payload as it is before the run.
			k := j + 1
			for k < len(subs) && subs[k].Mode == wire.ModeObserve {
				k++
			}
			early := out
			var wg sync.WaitGroup
			wg.Go(func() { c.observe(ctx, env, req, subs[j:k], &early) })
			stop, err = c.sequential(ctx, env, req, run, &out)
			wg.Wait()
			j = k
		case c.parallelTV:
			stop, err = c.parallel(ctx, env, req, run, &out)
		default:
			stop, err = c.sequential(ctx, env, req, run, &out)
		}
		if err != nil || stop {
			return out, err
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
		i = j
	}
	return out, ctx.Err()
}

type answer struct {
	res wire.HookDispatchResult
	cat string
	err error
}

func (c chain) invoke(ctx context.Context, env hooks.Env, req hooks.Request, sub wire.Subscriber, p wire.HookPayload) answer {
	if c.spanPerSubscriber {
		var span trace.Span
		ctx, span = env.Tracer.Start(ctx, wire.RoleHookDispatch, "hook "+req.Point+" "+sub.ID, turnAttrs(req.CallContext)...)
		defer span.End()
	}
	res, cat, err := hooks.Invoke(ctx, env, req, sub, p)
	return answer{res, cat, err}
}

func (c chain) report(env hooks.Env, req hooks.Request, sub wire.Subscriber, cat, msg string) {
	if c.errorNamesFirst {
		sub = hooks.ForPoint(req.Hooks, req.Point)[0]
	}
	if !c.silent {
		hooks.ReportFailure(env, req, sub, cat, msg)
	}
}

// observe calls a run of observers, concurrently unless told otherwise,
// and reports whether the chain must stop.
func (c chain) observe(ctx context.Context, env hooks.Env, req hooks.Request, run []wire.Subscriber, out *hooks.Outcome) bool {
	answers := make([]answer, len(run))
	if c.sequentialObserve {
		for i, sub := range run {
			answers[i] = c.invoke(ctx, env, req, sub, c.seen(req, out, c.observersSeeRequest))
		}
	} else {
		var wg sync.WaitGroup
		for i, sub := range run {
			wg.Go(func() { answers[i] = c.invoke(ctx, env, req, sub, c.seen(req, out, c.observersSeeRequest)) })
		}
		wg.Wait()
	}
	stop := false
	for i, a := range answers {
		switch {
		case a.err != nil:
		case a.cat != "":
			c.report(env, req, run[i], a.cat, "subscriber failed")
			stop = stop || c.observeErrorAborts
		case a.res.Outcome != wire.OutcomeAck:
			c.report(env, req, run[i], wire.HookErrInvalidResponse, "observe subscriber answered "+a.res.Outcome)
			if c.observeAnswerUsed && a.res.Payload != nil {
				out.Payload = *a.res.Payload
			}
		}
	}
	return stop
}

func (c chain) sequential(ctx context.Context, env hooks.Env, req hooks.Request, run []wire.Subscriber, out *hooks.Outcome) (bool, error) {
	for _, sub := range run {
		seen := c.seen(req, out, c.transformsSeeRequest && sub.Mode == wire.ModeTransform)
		stop, err := c.fold(env, req, sub, c.invoke(ctx, env, req, sub, seen), out)
		if err != nil || stop {
			return stop, err
		}
	}
	return false, nil
}

func (c chain) parallel(ctx context.Context, env hooks.Env, req hooks.Request, run []wire.Subscriber, out *hooks.Outcome) (bool, error) {
	answers := make([]answer, len(run))
	var wg sync.WaitGroup
	for i, sub := range run {
		wg.Go(func() { answers[i] = c.invoke(ctx, env, req, sub, out.Payload) })
	}
	wg.Wait()
	for i, sub := range run {
		stop, err := c.fold(env, req, sub, answers[i], out)
		if err != nil || stop {
			return stop, err
		}
	}
	return false, nil
}

// fold applies one transform or veto answer; it reports whether the chain
// stops, with an *hooks.AbortError for a failed transform.
func (c chain) fold(env hooks.Env, req hooks.Request, sub wire.Subscriber, a answer, out *hooks.Outcome) (bool, error) {
	if a.err != nil {
		if c.abandonedIsFailure && sub.Mode != wire.ModeObserve && errors.Is(a.err, context.Canceled) {
			cat := wire.HookErrTransformFailed
			if sub.Mode == wire.ModeVeto {
				cat = wire.HookErrVetoFailed
			}
			c.report(env, req, sub, cat, "subscriber call ended: "+a.err.Error())
		}
		return true, a.err
	}
	if sub.Mode == wire.ModeTransform {
		cat, msg := a.cat, "subscriber failed"
		if cat == "" {
			if c.acceptAnyTransform && a.res.Payload != nil {
				out.Payload = *a.res.Payload
				return false, nil
			}
			next, err := hooks.CheckTransform(req.Point, out.Payload, a.res)
			if err == nil {
				out.Payload = next
				return false, nil
			}
			cat, msg = wire.HookErrInvalidResponse, err.Error()
		}
		c.report(env, req, sub, cat, msg)
		if c.transformCarriesOn || (c.abortOnlyPreModel && req.Point != wire.PointPreModelCall) {
			return false, nil
		}
		return true, &hooks.AbortError{Point: req.Point, Subscriber: sub.ID, Category: cat}
	}
	switch {
	case a.cat != "":
		c.report(env, req, sub, a.cat, "subscriber failed")
		if c.vetoFailureAllows {
			return false, nil
		}
	case a.res.Outcome != wire.OutcomeVeto || (a.res.Decision != wire.DecisionAllow && a.res.Decision != wire.DecisionDeny):
		c.report(env, req, sub, wire.HookErrInvalidResponse, "veto subscriber answered "+a.res.Outcome+" "+a.res.Decision)
		if c.unfitVetoAllows {
			return false, nil
		}
	case a.res.Decision == wire.DecisionAllow:
		return false, nil
	}
	if !out.Denied {
		out.Denied, out.DeniedBy, out.Reason = true, sub.ID, "denied"
	}
	return !c.noShortCircuit, nil
}

// seen is the payload a subscriber is sent: the chain's so far, or the
// request's as it came when a semantic mutant says so.
func (chain) seen(req hooks.Request, out *hooks.Outcome, request bool) wire.HookPayload {
	if request {
		p := req.Payload
		p.Variant = req.Point
		return p
	}
	return out.Payload
}

// announcer puts the configured timeout back into the request of a
// dispatcher that does not enforce it.
type announcer struct {
	hooks.Caller
	ms map[string]int
}

func (a announcer) Hook(ctx context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
	p.TimeoutMS = a.ms[p.Subscriber]
	return a.Caller.Hook(ctx, p)
}

// swallowAbort hides a transform abort from the loop.
type swallowAbort struct{ hooks.Dispatcher }

func (d swallowAbort) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	out, err := d.Dispatcher.Dispatch(ctx, env, req)
	var abort *hooks.AbortError
	if errors.As(err, &abort) {
		return out, nil
	}
	return out, err
}

// ignoreOutput drops what the pre-model-call transforms returned.
type ignoreOutput struct{ hooks.Dispatcher }

func (d ignoreOutput) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	out, err := d.Dispatcher.Dispatch(ctx, env, req)
	if req.Point == wire.PointPreModelCall {
		out.Payload = req.Payload
	}
	return out, err
}

// skipThirdParty leaves third-party subscribers out of every chain.
type skipThirdParty struct{ hooks.Dispatcher }

func (d skipThirdParty) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	req.Hooks.Subscribers = slices.DeleteFunc(slices.Clone(req.Hooks.Subscribers), func(s wire.Subscriber) bool { return s.ThirdParty })
	return d.Dispatcher.Dispatch(ctx, env, req)
}

// allowAll is a policy engine that decides nothing.
type allowAll struct{}

func (allowAll) Evaluate([]wire.PolicyRule, plangate.Call) plangate.Verdict {
	return plangate.Verdict{Decision: wire.PolicyAllow}
}

func (allowAll) Precheck([]wire.PolicyRule, plangate.Call) plangate.Verdict {
	return plangate.Verdict{Decision: wire.PolicyAllow}
}

// policyAsHook runs a "policy" veto subscriber ahead of the plan-ready chain.
type policyAsHook struct{ hooks.Dispatcher }

func (d policyAsHook) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	if req.Point == wire.PointPlanReady {
		policy := wire.Subscriber{ID: "policy", Point: wire.PointPlanReady, Mode: wire.ModeVeto}
		req.Hooks.Subscribers = append([]wire.Subscriber{policy}, req.Hooks.Subscribers...)
	}
	return d.Dispatcher.Dispatch(ctx, env, req)
}

// kernelProducer rewrites the producer of hook_error events.
type kernelProducer struct{ hooks.Dispatcher }

type producerRewriter struct{ hooks.Caller }

func (r producerRewriter) Notify(method string, params any) {
	if ev, ok := params.(wire.Event); ok && ev.Kind == wire.EventHookError {
		ev.Producer = "kernel"
		params = ev
	}
	r.Caller.Notify(method, params)
}

func (d kernelProducer) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	env.Host = producerRewriter{env.Host}
	return d.Dispatcher.Dispatch(ctx, env, req)
}

// ignoreSupported forgets the plugins' supported points at config load.
type ignoreSupported struct{ hooks.Dispatcher }

func (d ignoreSupported) Validate(h wire.Hooks) error {
	h.Subscribers = slices.Clone(h.Subscribers)
	for i := range h.Subscribers {
		h.Subscribers[i].SupportedPoints = nil
	}
	return d.Dispatcher.Validate(h)
}

// assembleAsHook also offers context-assemble to the pre-model-call
// subscribers through the generic hook service.
type assembleAsHook struct{ hooks.Dispatcher }

func (d assembleAsHook) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	if req.Point == wire.PointPreModelCall {
		extra := req
		extra.Point = wire.PointContextAssemble
		extra.Hooks.Subscribers = nil
		for _, s := range hooks.ForPoint(req.Hooks, wire.PointPreModelCall) {
			s.Point, s.Mode = wire.PointContextAssemble, wire.ModeObserve
			extra.Hooks.Subscribers = append(extra.Hooks.Subscribers, s)
		}
		if _, err := d.Dispatcher.Dispatch(ctx, env, extra); err != nil {
			return hooks.Outcome{Payload: req.Payload}, err
		}
	}
	return d.Dispatcher.Dispatch(ctx, env, req)
}

// mislabel sends post-apply payloads with the plan-ready variant.
type mislabel struct{ hooks.Dispatcher }

type variantRewriter struct{ hooks.Caller }

func (r variantRewriter) Hook(ctx context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
	if p.Point == wire.PointPostApply {
		p.Payload.Variant = wire.PointPlanReady
	}
	return r.Caller.Hook(ctx, p)
}

func (d mislabel) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	env.Host = variantRewriter{env.Host}
	return d.Dispatcher.Dispatch(ctx, env, req)
}
