package loop

import (
	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/doomloop"
	"github.com/agentconform/conform/spec/wire"
)

// stepPostToolCall is step 13: one dispatch per call in message order,
// denied calls included with their denial, unknown tools left out. A
// terminal tool marks the session done once its own dispatch has run.
func stepPostToolCall(t *Turn) error {
	s := t.Session
	for _, c := range t.ToolCalls() {
		res := c.outcome()
		if c.Schema == nil {
			continue // see stepPreToolCall
		}
		if _, err := s.dispatch(t.Ctx, t.CallContext, wire.PointPostToolCall, wire.HookPayload{Call: c.wire(), Result: &res}); err != nil {
			return err
		}
		if c.Schema != nil && s.parts.Done.Terminates(*c.Schema, c.Executed) {
			t.Done = true
		}
	}
	return nil
}

// stepPostApply is step 14, fired even with an empty plan.
func stepPostApply(t *Turn) error {
	plan := t.Plan
	if plan.Items == nil {
		plan.Items = []wire.PlanItem{}
	}
	_, err := t.Session.dispatch(t.Ctx, t.CallContext, wire.PointPostApply, wire.HookPayload{Plan: &plan})
	return err
}

// stepHistory is step 15: the reply, then one user message with a result
// per tool_use, in tool_use order.
func stepHistory(t *Turn) error {
	s := t.Session
	s.history = append(s.history, t.Message)
	calls := t.ToolCalls()
	if len(calls) == 0 {
		return nil
	}
	blocks := make([]wire.ContentBlock, 0, len(calls))
	for _, c := range calls {
		r := c.outcome()
		blocks = append(blocks, wire.ContentBlock{
			Type: wire.BlockToolResult, ToolUseID: c.Use.ID,
			Content: r.Content, IsError: r.IsError, ErrorCategory: r.ErrorCategory,
		})
	}
	s.history = append(s.history, wire.Message{Role: "user", Content: blocks})
	return nil
}

// stepDoomLoop is step 16: extend the session-wide sequence with this
// turn's reads and resource calls and look for a run of identical hashes.
func stepDoomLoop(t *Turn) error {
	s := t.Session
	if t.Done {
		return nil
	}
	for _, c := range t.ToolCalls() {
		if k := c.Kind(); k == wire.KindDataSource || k == wire.KindResource {
			s.hashes = append(s.hashes, s.parts.DoomLoop.Hash(c.Use.Name, c.Use.Input))
		}
	}
	if n := len(s.hashes) - s.doomWindow(); n > 0 {
		s.hashes = append(s.hashes[:0], s.hashes[n:]...)
	}
	trip, ok := s.parts.DoomLoop.Check(s.hashes, doomloop.Threshold(s.cfg.DoomLoop))
	if !ok {
		return s.modelCheck(t, relevantCalls(t)) // TA-13, see loopcheck.go
	}
	s.emit(t.ID, wire.EventDoomLoop, map[string]any{
		"tool": lastTool(t), "hash": trip.Hash, "count": trip.Count, "threshold": trip.Threshold,
	})
	t.Fired = &bounds.Fired{Bound: bounds.DoomLoop, Status: s.parts.DoomLoop.Status()}
	return nil
}

// relevantCalls are the turn's calls that enter the doom-loop sequence:
// reads and resource calls; interactive calls are invisible.
func relevantCalls(t *Turn) []*Call {
	var out []*Call
	for _, c := range t.ToolCalls() {
		if k := c.Kind(); k == wire.KindDataSource || k == wire.KindResource {
			out = append(out, c)
		}
	}
	return out
}

// lastTool names the turn's last call that entered the doom-loop sequence.
func lastTool(t *Turn) string {
	calls := t.ToolCalls()
	for i := len(calls) - 1; i >= 0; i-- {
		if k := calls[i].Kind(); k == wire.KindDataSource || k == wire.KindResource {
			return calls[i].Use.Name
		}
	}
	return ""
}

// stepBounds is step 17, the only place the wall clock is read.
func stepBounds(t *Turn) error {
	s := t.Session
	if err := t.afterToolErrors(); err != nil { // ER-04, ER-10, see errors.go
		return err
	}
	if t.Done || t.Fired != nil {
		return nil
	}
	if f := t.circuitBreaker(); f != nil { // PA-05, see step_plan.go
		t.Fired = f
		return nil
	}
	f, ok := s.parts.Bounds.Check(s.cfg.Bounds, s.usage()) // see soft.go
	if ok {
		t.Fired = &f
	}
	return nil
}
