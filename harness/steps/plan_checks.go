package steps

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

func (p *planArea) ordinaryResult(nth, tool string) error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	rs, err := p.resultsFor(nth, tool)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if r.IsError {
			return fmt.Errorf("expected an ordinary result for the call %s to %q in model request %s, it is an error: %q", r.ToolUseID, tool, nth, r.Content)
		}
	}
	return nil
}

func (p *planArea) resultText(nth, text, tool string) error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	rs, err := p.resultsFor(nth, tool)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if r.IsError || !strings.Contains(r.Content, text) {
			return fmt.Errorf("expected the result of the call %s to %q in model request %s to be %q, it is %q (is_error %v)", r.ToolUseID, tool, nth, text, r.Content, r.IsError)
		}
	}
	return nil
}

// PA-04: plan mode leaves resource specs out of the request.
func (p *planArea) noResourceSpecs(nth string) error {
	r, err := p.s.modelRequest(nth)
	if err != nil {
		return err
	}
	for _, t := range r.Tools {
		if p.s.kindOf(t.Name) == wire.KindResource {
			return fmt.Errorf("expected model request %s to offer no resource tool in plan mode, it offered %q", nth, t.Name)
		}
	}
	return nil
}

// PA-17, PA-19: a refused decision earns an error that names the item.
func (p *planArea) refusedWithError(tool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ids := map[string]bool{}
	for _, a := range s.permissionItems(s.SessionID) {
		if a.item.Tool == tool {
			ids[a.item.ID] = true
		}
	}
	if len(ids) == 0 {
		return fmt.Errorf("expected a permission request about %q, the frontend received none", tool)
	}
	for _, e := range s.eventEntries(s.SessionID, wire.EventError) {
		if ids[payloadString(e.Value.(wire.Event), "plan_item_id")] {
			return nil
		}
	}
	return fmt.Errorf("expected an error event naming the plan_item_id of the %q item (the kernel must refuse the decision with a distinct error, not accept, shorten or deny it); none came", tool)
}

func (p *planArea) ranWith(tool, args string, want bool) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	in, err := parseArgs(args)
	if err != nil {
		return err
	}
	var inputs []string
	for _, e := range s.requests() {
		if v, ok := e.Value.(wire.ToolInvokeParams); ok && v.Tool == tool {
			if jsonEqual(v.Input, in) {
				if !want {
					return fmt.Errorf("expected %q never to run with input %s, the kernel invoked it so (#%d)", tool, compact(in), e.Seq)
				}
				return nil
			}
			inputs = append(inputs, compact(v.Input))
		}
	}
	if want {
		return fmt.Errorf("expected %q to run with input %s, the kernel invoked it with %s", tool, compact(in), plain.And(inputs))
	}
	return nil
}

// PA-15: an interactive call reaches the frontend as an interactive request.
func (p *planArea) interactiveFields(tool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ids := s.callIDsOf(tool)
	for _, e := range s.requests() {
		v, ok := e.Value.(wire.InteractiveParams)
		if !ok || v.ToolName != tool {
			continue
		}
		switch {
		case !slices.Contains(ids, v.CallID):
			return fmt.Errorf("the interactive request for %q (#%d) names call_id %q, the model's calls to it are %s", tool, e.Seq, v.CallID, plain.JSON(ids))
		case strings.TrimSpace(v.Prompt) == "":
			return fmt.Errorf("the interactive request for %q (#%d) has an empty prompt", tool, e.Seq)
		}
		return nil
	}
	return fmt.Errorf("expected an interactive request for %q, the frontend received none", tool)
}

// readingBreakerStatus is the kernel's reading of the status after a
// circuit-breaker ending (A-06, PROTOCOL.md §15).
const readingBreakerStatus = "circuit_breaker.status"

// PA-05: the breaker ends the session like a bound: with the status
// the kernel declares, which must itself be one a fired bound may end with;
// undeclared, any of them. failed (a bound is no error) and running never
// do. completed is allowed but recorded as suspicious, since it looks like a
// normal finish.
func (p *planArea) breakerStatus() error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	got := s.Result.Status
	allowed := "one of " + strings.Join(doomStatuses, ", ") + " (A-06)"
	if want, ok := s.env.Info.Readings[readingBreakerStatus]; ok && want != "" {
		if !slices.Contains(doomStatuses, want) {
			return fmt.Errorf("the kernel declares %s = %q, which no reading allows: the breaker takes the limit path, which ends with %s", readingBreakerStatus, want, allowed)
		}
		if got != want {
			return fmt.Errorf("expected the session to end with the kernel's circuit-breaker status %q (%s), it ended %q", want, readingBreakerStatus, got)
		}
	} else if !slices.Contains(doomStatuses, got) {
		return fmt.Errorf("expected the session to end, after the circuit breaker tripped, with %s; it ended %q", allowed, got)
	}
	if got == wire.StatusCompleted {
		s.observe("A-06", "the circuit-breaker ending was reported with status %q, which looks like a normal finish (%s = %q)", got, readingBreakerStatus, s.env.Info.Readings[readingBreakerStatus])
	}
	return nil
}

// PA-04: plan mode is defined by leaving resource specs out of the request;
// the spec assumes a model cannot call a tool it was not offered, so what a
// kernel does with a forged call anyway is recorded, never judged.
func (p *planArea) forgedCallReaction(tool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ids := s.callIDsOf(tool)
	if len(ids) == 0 {
		s.observe("PA-04", "the forged call to %q never reached the kernel", tool)
		return nil
	}
	for _, id := range ids {
		what := "was not executed"
		if e, ran := s.invokedCall(id); ran {
			what = fmt.Sprintf("was executed (tool/invoke #%d)", e.Seq)
		}
		asked := ""
		for _, a := range s.permissionItems(s.SessionID) {
			if a.item.ToolCallID == id {
				asked = fmt.Sprintf(", after a permission request (#%d)", a.entry.Seq)
			}
		}
		result := "no tool_result for it reached the model"
		for _, r := range s.modelRequests() {
			for _, m := range r.Messages {
				for _, c := range m.Content {
					if c.Type == wire.BlockToolResult && c.ToolUseID == id {
						result = fmt.Sprintf("the model got the result %q (is_error %v)", safeShort(c.Content), c.IsError)
					}
				}
			}
		}
		s.observe("PA-04", "in plan mode the forged call %s to %q, a resource tool the model was not offered, %s%s; %s", id, tool, what, asked, result)
	}
	return nil
}

// safeShort cuts kernel text for an observation; the report escapes it.
func safeShort(t string) string {
	if r := []rune(t); len(r) > 120 {
		return string(r[:120]) + "…"
	}
	return t
}

// PA-08: an asked item is applied only once the frontend has answered.
func (p *planArea) invokedAfterAnswer(tool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	asked := map[string]calllog.Entry{} // tool_call_id → the permission request
	for _, a := range s.permissionItems(s.SessionID) {
		if a.item.Tool == tool {
			asked[a.item.ToolCallID] = a.entry
		}
	}
	n := 0
	for _, e := range s.requests() {
		v, ok := e.Value.(wire.ToolInvokeParams)
		if !ok || v.Tool != tool {
			continue
		}
		n++
		ask, ok := asked[v.CallID]
		switch {
		case !ok:
			return fmt.Errorf("the call %s to %q was invoked (#%d) without a permission request about it", v.CallID, tool, e.Seq)
		case !ask.Answered() || e.Seq < ask.EndSeq:
			return fmt.Errorf("the call %s to %q was invoked (#%d) while its permission request (#%d) was still unanswered (answered %s)", v.CallID, tool, e.Seq, ask.Seq, holdText(ask))
		}
	}
	if n == 0 {
		return fmt.Errorf("expected %q to be invoked once the frontend allowed it, the kernel never invoked it", tool)
	}
	return nil
}
