package steps

import (
	"context"
	"fmt"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/spec/wire"
)

// PA-16, the interactive half: only the first answer to an interactive call
// counts. The kernel's frontend/interactive goes to the primary connection;
// the harness's second connection answers the same call with the
// interactive_responses of frontend/decide (PROTOCOL.md §6.7) while the
// primary's answer is held until the kernel has answered the second
// connection. No sleeps.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		d := &decideInteractive{s: s}
		// Setup.
		sc.Step(stepRE(`^a second frontend connection answers the interactive tool "([^"]+)" with "([^"]*)" before the frontend answers "([^"]*)"$`), d.answerFirst)
		// Checks.
		sc.Step(stepRE(`^the second frontend connection's answer to "([^"]+)" was accepted$`), s.proves(d.accepted, "PA-16"))
		sc.Step(stepRE(`^the frontend's late interactive answer to "([^"]+)" was withdrawn by the kernel or rejected with a frontend_error event naming connection "primary"$`), s.proves(d.lateAnswerRefused, "PA-16"))
	})
}

type decideInteractive struct{ s *Scenario }

func (d *decideInteractive) answerFirst(tool, second, primary string) error {
	d.s.World.AnswerInteractiveFirst(tool, secondConnection, second, fakes.Interactive{Answer: primary})
	return nil
}

// interactiveCalls are the call ids of a tool's interactive requests the
// frontend received, with their log entries.
func (d *decideInteractive) interactiveCalls(tool string) map[string]bool {
	ids := map[string]bool{}
	for _, e := range d.s.sessionRequests(d.s.SessionID) {
		if v, ok := e.Value.(wire.InteractiveParams); ok && v.ToolName == tool {
			ids[v.CallID] = true
		}
	}
	return ids
}

// outcomes are the kernel's answers to the second connection's interactive
// responses about a tool's calls.
func (d *decideInteractive) outcomes(tool string) ([]wire.InteractiveOutcome, error) {
	s := d.s
	if err := s.mustHaveRun(); err != nil {
		return nil, err
	}
	ids := d.interactiveCalls(tool)
	if len(ids) == 0 {
		return nil, fmt.Errorf("the frontend received no interactive request for %q, so no call was there for a second frontend connection to answer", tool)
	}
	var out []wire.InteractiveOutcome
	sent := 0
	for _, r := range s.World.Frontend.Decisions(s.env.Scale(decideWait)) {
		mine := false
		for _, a := range r.Params.InteractiveResponses {
			mine = mine || ids[a.CallID]
		}
		if !mine {
			continue
		}
		sent++
		if err := decideAnswered(r, tool); err != nil {
			return nil, err
		}
		switch {
		case len(r.Result.InteractiveResults) != len(r.Params.InteractiveResponses):
			return nil, fmt.Errorf("the second frontend connection sent %d interactive response(s) in frontend/decide (#%d), the kernel answered %d interactive outcome(s): %+v",
				len(r.Params.InteractiveResponses), r.Seq, len(r.Result.InteractiveResults), r.Result.InteractiveResults)
		}
		for _, o := range r.Result.InteractiveResults {
			if err := categorized(r.Seq, o.Accepted, o.CallID, o.Category); err != nil {
				return nil, err
			}
			if ids[o.CallID] || o.CallID == fakes.StrayCallID {
				out = append(out, o)
			}
		}
	}
	if sent == 0 {
		return nil, fmt.Errorf("the second frontend connection sent no answer about %q (it sends one while the kernel's interactive request is pending)", tool)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the kernel's answer to the second frontend connection's frontend/decide about %q has no interactive outcome for its call", tool)
	}
	return out, nil
}

func (d *decideInteractive) accepted(tool string) error {
	os, err := d.outcomes(tool)
	if err != nil {
		return err
	}
	for _, o := range os {
		if !o.Accepted {
			return fmt.Errorf("expected the second frontend connection's answer to call %s (%q), sent while the kernel's interactive request was still unanswered, to answer the call; "+
				"the kernel rejected it with %q (%s)", o.CallID, tool, o.Category, o.Message)
		}
	}
	return nil
}

// lateAnswerRefused: once the second connection answered the call, the
// primary's later answer must not pass silently: the kernel withdrew its
// interactive request ($/cancelRequest) or rejected the answer with a
// frontend_error event naming connection "primary" and the call.
func (d *decideInteractive) lateAnswerRefused(tool string) error {
	s := d.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	n := 0
	for _, e := range s.sessionRequests(s.SessionID) {
		v, ok := e.Value.(wire.InteractiveParams)
		if !ok || v.ToolName != tool {
			continue
		}
		n++
		if e.Answered() && e.Err == context.Canceled.Error() {
			continue // withdrawn by the kernel
		}
		found := false
		for _, fe := range s.eventEntries(s.SessionID, wire.EventFrontendError) {
			ev := fe.Value.(wire.Event)
			if payloadString(ev, "call_id") == v.CallID && payloadString(ev, "connection") == wire.ConnectionPrimary {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("the primary frontend connection answered the interactive request #%d about call %s (%q) after the second connection had answered that call, "+
				"and the kernel neither withdrew the request nor reported the late answer with a %s event naming connection %q and call_id %s: a late answer passed silently (frontend_error events: %s)",
				e.Seq, v.CallID, tool, wire.EventFrontendError, wire.ConnectionPrimary, v.CallID, (&decideArea{s: s}).frontendErrors())
		}
	}
	if n == 0 {
		return fmt.Errorf("the frontend received no interactive request for %q", tool)
	}
	return nil
}
