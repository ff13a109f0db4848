package loop

import (
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agentconform/conform/refkernel/retry"
	"github.com/agentconform/conform/refkernel/trace"
	"github.com/agentconform/conform/spec/wire"
)

// stepAssemble is step 1: the context provider's contributions, passed on
// to the model unchanged. The call is made every turn, config.context or
// not: it is the context-assemble point, which the harness uses to tell
// turns apart.
func stepAssemble(t *Turn) error {
	s := t.Session
	res, err := s.host.Assemble(t.Ctx, wire.ContextAssembleParams{
		CallContext: t.CallContext, Turn: t.Number, History: s.history,
	})
	if err != nil {
		return err
	}
	t.Contributions = res.Contributions
	return nil
}

// stepPreModelCall is step 2: build the request and let transforms rewrite
// its messages, the only mutable field.
func stepPreModelCall(t *Turn) error {
	s := t.Session
	req := t.newRequest()
	out, err := s.dispatch(t.Ctx, t.CallContext, wire.PointPreModelCall, wire.HookPayload{
		Model: req.Model, Messages: req.Messages, Tools: req.Tools,
	})
	if err != nil {
		return err
	}
	req.Messages = out.Payload.Messages
	if req.Messages == nil {
		req.Messages = []wire.Message{}
	}
	t.Request = req
	return nil
}

func (t *Turn) newRequest() *wire.ModelStreamParams {
	ctxs := t.Contributions
	if ctxs == nil {
		ctxs = []wire.Contribution{}
	}
	return &wire.ModelStreamParams{
		CallContext:      t.CallContext,
		Purpose:          t.purpose(),
		Model:            t.Session.cfg.Model.Name,
		Messages:         t.requestMessages(),
		Tools:            t.requestTools(),
		AssembledContext: ctxs,
	}
}

// stepModelCall is steps 3-4: stream, accumulate, price every usage event.
func stepModelCall(t *Turn) error {
	s := t.Session
	if t.Request == nil { // only with a reordered step list
		t.Request = t.newRequest()
	}
	params := *t.Request
	for attempt := 1; ; attempt++ {
		params.Attempt = attempt
		ctx, span := s.tracer.Start(t.Ctx, wire.RoleModelCall, "model_call", trace.Turn(t.ID),
			attribute.String("conform.purpose", params.Purpose), attribute.Int("conform.attempt", attempt))
		res, err := s.host.Stream(ctx, params)
		span.End()
		if err != nil {
			return err
		}
		got := accumulate(res.Events)
		if err := s.charge(t, got.usages); err != nil {
			return err
		}
		if got.err != nil {
			d := s.parts.Retry.Decide(s.cfg.Retry, *got.err, retry.State{Attempt: attempt, SessionRetries: s.retries})
			if d.Retry {
				s.retries++
				s.emit(t.ID, wire.EventRetry, map[string]any{
					"attempt": attempt, "category": got.err.Category, "delay_ms": d.Delay.Milliseconds(),
				})
				if err := s.wait(t, d.Delay); err != nil {
					return err
				}
				continue
			}
		}
		t.Message, t.StopReason, t.ModelError = got.msg, got.stop, got.err
		s.reportModelOutcome(t)
		return nil
	}
}

func (s *Session) wait(t *Turn, d time.Duration) error {
	select {
	case <-s.clock.After(d):
		return nil
	case <-t.Ctx.Done():
		return t.Ctx.Err()
	}
}

// reportModelOutcome makes a content filter and a model error visible as
// conditions of their own (ER-08).
func (s *Session) reportModelOutcome(t *Turn) {
	if t.StopReason == wire.ModelErrContentFiltered || (t.ModelError != nil && t.ModelError.Category == wire.ModelErrContentFiltered) {
		msg := "the model's output was filtered"
		if t.ModelError != nil {
			msg = t.ModelError.Message
		}
		s.emit(t.ID, wire.EventContentFilter, map[string]any{"message": msg, "stop_reason": t.StopReason})
	}
	if e := t.ModelError; e != nil {
		p := map[string]any{"category": e.Category, "message": e.Message, "retryable": e.Retryable}
		if e.RetryAfterMS != nil {
			p["retry_after_ms"] = *e.RetryAfterMS
		}
		s.emit(t.ID, wire.EventModelError, p)
	}
}

// charge prices each usage event on receipt and reports it at once, before
// anything else of the turn happens (TA-23).
func (s *Session) charge(t *Turn, usages []wire.Usage) error {
	for _, u := range usages {
		c, err := s.parts.Cost.Cost(s.cfg.Model.Pricing, u, s.clock.Now())
		if err != nil {
			return err
		}
		s.costUSD += c.USD
		s.inTokens += u.InputTokens
		s.outTokens += u.OutputTokens
		t.CostUSD += c.USD
		addUsage(&t.Usage, u)
		s.host.Notify(wire.NotifyCostUsage, wire.CostUsage{
			SessionID: s.id, TurnID: t.ID, Model: s.cfg.Model.Name, Usage: u,
			CostUSD: c.USD, SessionTotalUSD: s.costUSD, TierIndex: c.Tier,
		})
	}
	return nil
}

// stepPostModelResponse is step 5. A model error ends the session after the
// observers have seen it.
func stepPostModelResponse(t *Turn) error {
	msg, usage, cost := t.Message, t.Usage, t.CostUSD
	if _, err := t.Session.dispatch(t.Ctx, t.CallContext, wire.PointPostModelResponse, wire.HookPayload{
		Message: &msg, Usage: &usage, CostUSD: &cost, StopReason: t.StopReason, Error: t.ModelError,
	}); err != nil {
		return err
	}
	if e := t.ModelError; e != nil {
		return &ModelError{Err: *e}
	}
	return nil
}

// ModelError ends a session whose model request failed for good.
type ModelError struct {
	Err wire.ModelError
}

func (e *ModelError) Error() string {
	return "model error " + e.Err.Category + ": " + e.Err.Message
}

// stepDoneCheck is step 6. The final-answer turn always stops here, so
// nothing its reply asks for is executed.
func stepDoneCheck(t *Turn) error {
	if t.Final != nil {
		t.End = true
		return nil
	}
	if t.Session.parts.Done.Finished(t.Message) {
		t.Done, t.End = true, true
	}
	return nil
}
