package loop

import (
	"github.com/agentconform/conform/refkernel/cost"
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
	req := &wire.ModelStreamParams{
		CallContext:      t.CallContext,
		Purpose:          t.purpose(),
		Model:            t.Session.cfg.Model.Name,
		Messages:         t.requestMessages(),
		Tools:            t.requestTools(),
		AssembledContext: ctxs,
	}
	t.Session.dfRouting(req) // eligible skills (DF-06)
	return req
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
		s.node.Charge(c.USD, u.InputTokens, u.OutputTokens) // and every ancestor's (TA-07)
		t.CostUSD += c.USD
		addUsage(&t.Usage, u)
		report := wire.CostUsage{
			SessionID: s.id, TurnID: t.ID, Model: s.cfg.Model.Name, Usage: u,
			CostUSD: c.USD, SessionTotalUSD: s.costUSD, TierIndex: c.Tier,
		}
		if w := s.cfg.Bounds.Weights; w != nil { // TA-05, see soft.go
			wt := cost.Weighted(*w, u)
			s.limits.weighted += wt
			report.WeightedTokens = &wt
		}
		s.parts.Ledger.Report(s.host, report)
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
	// A reply that switched skills is no final answer (DF-06, dfirst.go).
	if !t.Session.dfSwitched(t) && t.Session.parts.Done.Finished(t.Message) {
		t.Done, t.End = true, true
	}
	return nil
}
