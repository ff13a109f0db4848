package steps

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// resultShape is what a check wants of a call's tool_result.
type resultShape int

const (
	resultError   resultShape = iota // flagged is_error (ER-04, ER-11, ER-12)
	resultSuccess                    // not flagged (ER-12)
)

// ER-04, ER-11, ER-12: the call's result as the model sees it.
func (s *Scenario) resultFor(n, from int, want resultShape) error {
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
	switch {
	case want == resultError && !b.IsError && s.bridgedWithoutErrorFlag():
		return glueNotReached(fmt.Sprintf("the agent's dialect (%s %s) has no error flag on a tool result, so whether the agent gave the model the result %q of call %s as an error cannot be told (bridge glue)",
			BridgeDialect, s.env.Info.Readings[BridgeDialect], b.Content, id))
	case want == resultError && !b.IsError:
		return fmt.Errorf("expected the result of call %s in model request %d to be an error (is_error), the model was given it as a success: %q", id, n, b.Content)
	case want == resultSuccess && b.IsError:
		return fmt.Errorf("expected the result of call %s in model request %d to be a success, it is an error (%s): %q", id, n, b.ErrorCategory, b.Content)
	}
	return nil
}

// ER-09, ER-12: the category, everywhere the kernel exposes one: the
// tool_result blocks, the post-tool-call payloads and tool_error-like
// events naming the call. At least one place must carry it, every
// tool_result of the call is an error (is_error), and once the kernel has
// named a category, every tool_result of the call carries it.
func (s *Scenario) resultCategory(from int, category string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	id, err := s.callOf(from)
	if err != nil {
		return err
	}
	var places, wrong, bare []string
	note := func(where, got string) {
		if got == "" {
			return
		}
		places = append(places, where)
		if got != category {
			wrong = append(wrong, fmt.Sprintf("%s says %q", where, got))
		}
	}
	// A dialect without an error flag carries neither the flag nor the
	// category in a tool result: only the other places can name it. Any
	// bridged agent learns of a failure over MCP, which has no category:
	// the flag is the agent's, a category in its tool_result never is.
	flagless := s.bridgedWithoutErrorFlag()
	bridged := s.env != nil && s.env.Bridged
	for i, r := range s.modelRequests() {
		for _, m := range r.Messages {
			for _, c := range m.Content {
				if c.Type == wire.BlockToolResult && c.ToolUseID == id && !flagless {
					if !bridged {
						note(fmt.Sprintf("the tool_result in model request %d", i+1), c.ErrorCategory)
						if c.ErrorCategory == "" {
							bare = append(bare, fmt.Sprintf("the tool_result in model request %d", i+1))
						}
					}
					if !c.IsError {
						// The model is told of the failure by is_error; a
						// category beside a success is no error result.
						wrong = append(wrong, fmt.Sprintf("the tool_result in model request %d is not marked is_error", i+1))
					}
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
	if strings.Contains(s.Result.Error, category) {
		// A kernel that ends the session at the failure (ER-04 is a
		// SHOULD) may name the category in the session's error.
		places = append(places, "the session result's error")
	}
	if len(places) == 0 && flagless {
		return glueNotReached(fmt.Sprintf("the agent's dialect (%s %s) carries no error flag or category in a tool result, and nothing else named the category %q for call %s (bridge glue)",
			BridgeDialect, s.env.Info.Readings[BridgeDialect], category, id))
	}
	if len(places) == 0 && bridged && len(wrong) == 0 {
		return glueNotReached(fmt.Sprintf("MCP gives the agent no error category, and nothing else named the category %q for call %s (bridge glue)", category, id))
	}
	if len(places) == 0 && !bridged {
		return fmt.Errorf("expected the kernel to name the category %q for call %s somewhere (tool_result error_category, post-tool-call payload, an event with its call_id, or the session result's error); it named none", category, id)
	}
	if len(wrong) > 0 {
		return fmt.Errorf("expected category %q for call %s wherever named: %s", category, id, strings.Join(wrong, "; "))
	}
	if len(bare) > 0 {
		// PROTOCOL.md §7.4: an error result keeps its error_category,
		// when there is one, in the tool_result the model sees; the
		// kernel named one.
		return fmt.Errorf("the kernel named the category %q for call %s (%s) but %s carries none: an error result keeps its category in the tool_result (PROTOCOL.md §7.4)",
			category, id, strings.Join(places, ", "), strings.Join(bare, " and "))
	}
	return nil
}

// ER-09: the crashed call is failed promptly, not waited on: the kernel
// goes on to its next model request, or (a kernel without ER-04's
// capability) ends the session, within ms of the crash. Which of the two
// is ER-04's business, not this check's.
func (s *Scenario) crashFailedPromptly(from, ms int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	id, err := s.callOf(from)
	if err != nil {
		return err
	}
	var crash calllog.Entry
	for _, e := range s.requests() {
		if v, ok := e.Value.(wire.ToolInvokeParams); ok && v.CallID == id && e.Answered() {
			crash = e
		}
	}
	if crash.Seq == 0 {
		return notReached("the call %s was never invoked (or its invoke never answered), so no crash happened", id)
	}
	next, what := time.Time{}, ""
	for _, e := range s.modelEntries() {
		if e.Seq > crash.EndSeq {
			next, what = e.Start, "the next model request"
			break
		}
	}
	if next.IsZero() {
		for _, e := range s.World.Log.Select(func(e *calllog.Entry) bool {
			return e.Method == wire.NotifySessionMeta && e.SessionID == s.SessionID && e.Seq > crash.EndSeq
		}) {
			if m, ok := e.Value.(wire.SessionMeta); ok && m.Status != wire.StatusRunning {
				next, what = e.Start, fmt.Sprintf("the session's end row (%s)", m.Status)
				break
			}
		}
	}
	bound := s.within(ms)
	if next.IsZero() {
		return fmt.Errorf("after the crash of call %s the kernel sent neither another model request nor an end row", id)
	}
	if d := next.Sub(crash.End); d > bound {
		return fmt.Errorf("expected the crashed call %s to be failed within %v of the crash, %s came after %v", id, bound, what, d.Round(time.Millisecond))
	}
	return nil
}
