package hooks

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agentconform/conform/refkernel/trace"
	"github.com/agentconform/conform/spec/wire"
)

// Span attribute keys of hook spans.
const (
	AttrPoint      = "conform.hook.point"
	AttrSubscriber = "conform.hook.subscriber"
	AttrMode       = "conform.hook.mode"
)

// Standard is the reference dispatcher.
type Standard struct{}

// Validate implements Dispatcher.
func (Standard) Validate(h wire.Hooks) error { return Validate(h) }

// Dispatch implements Dispatcher.
func (d Standard) Dispatch(ctx context.Context, env Env, req Request) (Outcome, error) {
	req.Payload.Variant = req.Point // the variant alone names the point (HD-17)
	ctx, span := env.Tracer.Start(ctx, wire.RoleHookDispatch, "hook "+req.Point, spanAttrs(req.CallContext, attribute.String(AttrPoint, req.Point))...)
	defer span.End()

	out := Outcome{Payload: req.Payload}
	subs := ForPoint(req.Hooks, req.Point)
	for i := 0; i < len(subs); {
		if subs[i].Mode == wire.ModeObserve {
			j := i + 1
			for j < len(subs) && subs[j].Mode == wire.ModeObserve {
				j++
			}
			d.observe(ctx, env, req, subs[i:j], out.Payload)
			i = j
		} else {
			sub := subs[i]
			i++
			var err error
			var stop bool
			if sub.Mode == wire.ModeTransform {
				out.Payload, err = d.transform(ctx, env, req, sub, out.Payload)
			} else {
				stop, err = d.veto(ctx, env, req, sub, out.Payload, &out)
			}
			if err != nil || stop {
				return out, err
			}
		}
		if err := ctx.Err(); err != nil {
			return out, err
		}
	}
	return out, ctx.Err()
}

// observe calls a run of adjacent observers at once and waits for all.
func (d Standard) observe(ctx context.Context, env Env, req Request, subs []wire.Subscriber, p wire.HookPayload) {
	var wg sync.WaitGroup
	for _, sub := range subs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, cat, err := Invoke(ctx, env, req, sub, p)
			switch {
			case err != nil:
				// the session is being cancelled: nothing to report
			case cat != "":
				ReportFailure(env, req, sub, cat, "subscriber failed")
			case res.Outcome != wire.OutcomeAck:
				ReportFailure(env, req, sub, wire.HookErrInvalidResponse, "observe subscriber answered "+describe(res))
			}
		}()
	}
	wg.Wait()
}

func (d Standard) transform(ctx context.Context, env Env, req Request, sub wire.Subscriber, p wire.HookPayload) (wire.HookPayload, error) {
	res, cat, err := Invoke(ctx, env, req, sub, p)
	if err != nil {
		return p, err
	}
	msg := "subscriber failed"
	if cat == "" {
		var next wire.HookPayload
		if next, err = CheckTransform(req.Point, p, res); err == nil {
			return next, nil
		}
		cat, msg = wire.HookErrInvalidResponse, err.Error()
	}
	ReportFailure(env, req, sub, cat, msg)
	return p, &AbortError{Point: req.Point, Subscriber: sub.ID, Category: cat, Err: failure(cat, msg)}
}

// veto reports whether the chain stops here, recording a deny in out.
func (d Standard) veto(ctx context.Context, env Env, req Request, sub wire.Subscriber, p wire.HookPayload, out *Outcome) (bool, error) {
	res, cat, err := Invoke(ctx, env, req, sub, p)
	if err != nil {
		return true, err
	}
	reason := res.Reason
	switch {
	case cat != "":
		reason = "veto subscriber failed (" + cat + ")"
		ReportFailure(env, req, sub, cat, "subscriber failed")
	case res.Outcome != wire.OutcomeVeto || (res.Decision != wire.DecisionAllow && res.Decision != wire.DecisionDeny):
		reason = "veto subscriber answered " + describe(res)
		ReportFailure(env, req, sub, wire.HookErrInvalidResponse, reason)
	case res.Decision == wire.DecisionAllow:
		return false, nil
	}
	out.Denied, out.DeniedBy, out.Reason = true, sub.ID, reason
	return true, nil
}

func spanAttrs(cc wire.CallContext, kv ...attribute.KeyValue) []attribute.KeyValue {
	if cc.TurnID != "" {
		kv = append(kv, trace.Turn(cc.TurnID))
	}
	return kv
}
