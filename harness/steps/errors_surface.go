package steps

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// ER-07: a switch to another model is never silent. Any model request
// that names a model other than the session's primary must come after the
// frontend was told of the error, by an event naming the category with a
// message for a human. Requests that stay with the primary pass: ER-07
// forbids a quiet switch, not a failure that names nothing (that is only
// recorded, see recordModelErrorReaction).
func (s *Scenario) noSilentSwitch(category string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	primary := s.Cfg.Model.Name
	for i, e := range s.modelEntries() {
		r := e.Value.(wire.ModelStreamParams)
		if r.Model == primary {
			continue
		}
		if told, ok := s.toldBefore(category, e.Seq); ok {
			s.observe("ER-07", "after %s the kernel switched to model %q (model request %d), having told the frontend first (%s event)", category, r.Model, i+1, told)
			continue
		}
		return fmt.Errorf("model request %d went to %q instead of the primary %q after %s, and no event naming %s with a message for a human came before it: a silent fallback",
			i+1, r.Model, primary, category, category)
	}
	return nil
}

// toldBefore finds a root event before seq that names what, with a
// message for a human.
func (s *Scenario) toldBefore(what string, seq int) (string, bool) {
	for _, e := range s.World.Log.Select(func(e *calllog.Entry) bool {
		return e.Method == wire.NotifyEvent && e.SessionID == s.SessionID && e.Seq < seq
	}) {
		ev, ok := e.Value.(wire.Event)
		if !ok || !eventNames(ev, what) {
			continue
		}
		if m, ok := ev.Payload["message"].(string); ok && strings.TrimSpace(m) != "" {
			return ev.Kind, true
		}
	}
	return "", false
}

// recordModelErrorReaction records, without judging, whether the kernel
// named a non-retryable error to the frontend and how the session ended:
// the taxonomy asks to surface auth_error to a human, but no requirement
// of the catalog makes that a verdict (ER-07 forbids a silent switch only).
func (s *Scenario) recordModelErrorReaction(category string) error {
	if !s.ran || s.Rejected != nil {
		return nil
	}
	named := "did not name it in any event"
	for _, e := range s.rootEvents() {
		if eventNames(e, category) {
			named = fmt.Sprintf("named it in a %q event", e.Kind)
			break
		}
	}
	s.observe("ER-07", "after %s the kernel %s; the session ended %q", category, named, s.Result.Status)
	return nil
}

// eventNames reports whether an event names a condition: by its kind or by
// the category or stop_reason in its payload.
func eventNames(e wire.Event, what string) bool {
	if e.Kind == what {
		return true
	}
	for _, k := range []string{"category", "stop_reason", "error_category"} {
		if v, ok := e.Payload[k].(string); ok && v == what {
			return true
		}
	}
	if inner, ok := e.Payload["error"].(map[string]any); ok {
		if v, ok := inner["category"].(string); ok && v == what {
			return true
		}
	}
	return false
}

func (s *Scenario) rootEvents() []wire.Event {
	var out []wire.Event
	for _, e := range s.World.Events() {
		if e.SessionID == s.SessionID {
			out = append(out, e)
		}
	}
	return out
}

func eventKinds(es []wire.Event) string {
	var ks []string
	for _, e := range es {
		ks = append(ks, e.Kind)
	}
	if len(ks) == 0 {
		return "none"
	}
	return strings.Join(ks, ", ")
}

// ER-06 / A-27: a clean failure names its cause.
func (s *Scenario) causeNamed(cause string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for _, e := range s.rootEvents() {
		if eventNames(e, cause) {
			return nil
		}
	}
	if strings.Contains(s.Result.Error, cause) {
		return nil
	}
	return fmt.Errorf("expected an event (kind, or payload category) or the session result's error to name %q; events: %s; result error: %q",
		cause, eventKinds(s.rootEvents()), s.Result.Error)
}

// ER-07, ER-08: the condition reaches the frontend as an event of its own.
func (s *Scenario) eventReported(what, forHuman string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for _, e := range s.rootEvents() {
		if !eventNames(e, what) {
			continue
		}
		if forHuman == "" {
			return nil
		}
		if m, ok := e.Payload["message"].(string); ok && strings.TrimSpace(m) != "" {
			return nil
		}
	}
	need := ""
	if forHuman != "" {
		need = " with a non-empty payload message"
	}
	return fmt.Errorf("expected an event naming %q (as its kind or its payload category or stop_reason)%s; the kernel reported: %s", what, need, eventKinds(s.rootEvents()))
}

func (s *Scenario) noEventReported(what string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for _, e := range s.rootEvents() {
		if eventNames(e, what) {
			return fmt.Errorf("expected no event naming %q, the kernel reported a %q event that does: %s", what, e.Kind, plain.JSON(e.Payload))
		}
	}
	return nil
}

// ER-08: what the post-model-response observers saw.
func (s *Scenario) postModelPayloads() []wire.HookPayload {
	var out []wire.HookPayload
	for _, e := range s.dispatchesAt(wire.PointPostModelResponse) {
		out = append(out, e.Value.(wire.HookDispatchParams).Payload)
	}
	return out
}

func describePayloads(ps []wire.HookPayload) string {
	if len(ps) == 0 {
		return "no post-model-response dispatch"
	}
	var out []string
	for _, p := range ps {
		cat := ""
		if p.Error != nil {
			cat = p.Error.Category
		}
		out = append(out, fmt.Sprintf("stop_reason %q, error category %q", p.StopReason, cat))
	}
	return strings.Join(out, "; ")
}

func (s *Scenario) observerSaw(what, field string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ps := s.postModelPayloads()
	for _, p := range ps {
		if field == "stop reason" && p.StopReason == what {
			return nil
		}
		if field == "error category" && p.Error != nil && p.Error.Category == what {
			return nil
		}
	}
	return fmt.Errorf("expected a post-model-response payload with %s %q; the observers saw: %s", field, what, describePayloads(ps))
}

func (s *Scenario) observerNeverSaw(what string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ps := s.postModelPayloads()
	for _, p := range ps {
		if p.StopReason == what || (p.Error != nil && p.Error.Category == what) {
			return fmt.Errorf("expected no post-model-response payload naming %q; the observers saw: %s", what, describePayloads(ps))
		}
	}
	return nil
}

// callOf is the id of the first tool call the fake model emitted in its
// answer to request n.
func (s *Scenario) callOf(n int) (string, error) {
	es := s.modelEntries()
	if n < 1 || n > len(es) {
		return "", notReached("there is no model request %d, whose answer holds the call: the kernel sent %d", n, len(es))
	}
	e := es[n-1]
	var r wire.ModelStreamResult
	_ = json.Unmarshal(e.Result, &r)
	for _, ev := range r.Events {
		if ev.Type == wire.EventToolCall {
			return ev.ID, nil
		}
	}
	return "", fmt.Errorf("the answer to model request %d has no tool call", n)
}

// resultBlock is the tool_result for a call id in model request n.
func (s *Scenario) resultBlock(n int, id string) (wire.ContentBlock, error) {
	rs := s.modelRequests()
	if n < 1 || n > len(rs) {
		// Whether the session goes on after a failed call is ER-04's
		// business (its own status check); this one looks at the result.
		return wire.ContentBlock{}, notReached("there is no model request %d to hold the result of call %s: the kernel sent %d and ended %q (error %q)",
			n, id, len(rs), s.Result.Status, s.Result.Error)
	}
	for _, m := range rs[n-1].Messages {
		for _, c := range m.Content {
			if c.Type == wire.BlockToolResult && c.ToolUseID == id {
				return c, nil
			}
		}
	}
	return wire.ContentBlock{}, fmt.Errorf("model request %d holds no tool_result for call %s", n, id)
}
