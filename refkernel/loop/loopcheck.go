package loop

import (
	"go.opentelemetry.io/otel/attribute"

	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/doomloop"
	"github.com/agentconform/conform/refkernel/trace"
	"github.com/agentconform/conform/spec/wire"
)

// modelCheck is the doom loop's second tier (TA-13), run at step 16 after
// the hash tier stayed quiet. It feeds the turn's relevant calls into the
// window and, when the LoopCheck part says so, asks the model. A confident
// yes takes the same limit-reached path as the hash tier.
func (s *Session) modelCheck(t *Turn, calls []*Call) error {
	window := doomloop.ModelCheckWindow(s.cfg.DoomLoop)
	if window == 0 {
		return nil
	}
	for _, c := range calls {
		s.limits.recent = append(s.limits.recent, doomloop.Call{Tool: c.Use.Name, Input: c.Use.Input})
		s.limits.sinceCheck++
	}
	if n := len(s.limits.recent) - window; n > 0 {
		s.limits.recent = append(s.limits.recent[:0], s.limits.recent[n:]...)
	}
	if !s.parts.LoopCheck.Due(s.limits.sinceCheck, window) {
		return nil
	}
	s.limits.sinceCheck = 0
	params := wire.ModelStreamParams{
		CallContext:      t.CallContext,
		Purpose:          wire.PurposeLoopCheck,
		Model:            s.cfg.Model.Name,
		Messages:         s.parts.LoopCheck.Question(s.limits.recent),
		Tools:            []wire.ToolSpec{},
		AssembledContext: []wire.Contribution{},
		Attempt:          1,
	}
	ctx, span := s.tracer.Start(t.Ctx, wire.RoleModelCall, "model_call", trace.Turn(t.ID),
		attribute.String("conform.purpose", params.Purpose), attribute.Int("conform.attempt", 1))
	res, err := s.host.Stream(ctx, params)
	span.End()
	if err != nil {
		return err
	}
	got := accumulate(res.Events)
	// The check's tokens are spent like any other (TA-06).
	if err := s.charge(t, got.usages); err != nil {
		return err
	}
	if got.err != nil || !s.parts.LoopCheck.Looping(got.msg) {
		return nil
	}
	s.emit(t.ID, wire.EventDoomLoop, map[string]any{"tier": "model_check", "window": len(s.limits.recent)})
	t.Fired = &bounds.Fired{Bound: bounds.DoomLoop, Status: s.parts.DoomLoop.Status()}
	return nil
}
