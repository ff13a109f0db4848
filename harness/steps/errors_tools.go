package steps

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// ER-04, ER-09, ER-11, ER-12: the call's result as the model sees it.
func (s *Scenario) resultFor(n, from int, wantError bool) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	id, err := s.callOf(from)
	if err != nil {
		return err
	}
	b, err := s.resultBlock(n, id)
	if err != nil {
		return err
	}
	if b.IsError != wantError {
		if wantError {
			return fmt.Errorf("expected the result of call %s in model request %d to be an error (is_error), the model was given it as a success: %q", id, n, b.Content)
		}
		return fmt.Errorf("expected the result of call %s in model request %d to be a success, it is an error (%s): %q", id, n, b.ErrorCategory, b.Content)
	}
	return nil
}

// ER-09, ER-12: the category, everywhere the kernel exposes one: the
// tool_result blocks, the post-tool-call payloads and tool_error-like
// events naming the call. At least one place must carry it.
func (s *Scenario) resultCategory(from int, category string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	id, err := s.callOf(from)
	if err != nil {
		return err
	}
	var places, wrong []string
	note := func(where, got string) {
		if got == "" {
			return
		}
		places = append(places, where)
		if got != category {
			wrong = append(wrong, fmt.Sprintf("%s says %q", where, got))
		}
	}
	for i, r := range s.modelRequests() {
		for _, m := range r.Messages {
			for _, c := range m.Content {
				if c.Type == wire.BlockToolResult && c.ToolUseID == id {
					note(fmt.Sprintf("the tool_result in model request %d", i+1), c.ErrorCategory)
				}
			}
		}
	}
	for _, e := range s.dispatchesAt(wire.PointPostToolCall) {
		p := e.Value.(wire.HookDispatchParams).Payload
		if p.Call != nil && p.Call.ID == id && p.Result != nil {
			note(fmt.Sprintf("the post-tool-call payload (#%d)", e.Seq), p.Result.ErrorCategory)
		}
	}
	for _, e := range s.rootEvents() {
		if e.Payload["call_id"] == id || e.Payload["tool_call_id"] == id {
			if v, ok := e.Payload["category"].(string); ok {
				note(fmt.Sprintf("the %s event", e.Kind), v)
			}
		}
	}
	if len(places) == 0 {
		return fmt.Errorf("expected the kernel to name the category %q for call %s somewhere (tool_result error_category, post-tool-call payload, or an event with its call_id); it named none", category, id)
	}
	if len(wrong) > 0 {
		return fmt.Errorf("expected category %q for call %s wherever named: %s", category, id, strings.Join(wrong, "; "))
	}
	return nil
}

// ER-09: the crashed call's result reaches the model promptly.
func (s *Scenario) promptAfterCall(n, ms, from int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	id, err := s.callOf(from)
	if err != nil {
		return err
	}
	var last calllog.Entry
	for _, e := range s.requests() {
		if v, ok := e.Value.(wire.ToolInvokeParams); ok && v.CallID == id && e.Answered() {
			last = e
		}
	}
	if last.Seq == 0 {
		return fmt.Errorf("no answered tool/invoke for call %s was recorded", id)
	}
	cur, err := s.modelEntry(n)
	if err != nil {
		return err
	}
	if d := cur.Start.Sub(last.End); d > time.Duration(ms)*time.Millisecond {
		return fmt.Errorf("expected model request %d within %d ms of the answer to call %s, it came after %v", n, ms, id, d)
	}
	return nil
}
