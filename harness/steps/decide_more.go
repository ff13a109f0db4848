package steps

import (
	"errors"
	"fmt"
	"time"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

// More of the second frontend connection (PA-16, PROTOCOL.md §6.7): several
// decisions or answers in one frontend/decide, each with its own outcome in
// the order sent; a decision the kernel refuses for its content; an answer
// to an interactive call that no longer waits.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		d := &decideArea{s: s}
		di := &decideInteractive{s: s}
		// Setup.
		sc.Step(stepRE(`^a second frontend connection decides "([^"]+)" with (ALLOW|DENY) and scope (ONCE|SESSION|ALWAYS) before the frontend answers (ALLOW|DENY)$`), func(tool, second, scope, primary string) error {
			s.World.DecideFirstScoped(tool, secondConnection, second, scope, fakes.Permission{Decision: primary, Scope: wire.ScopeOnce})
			return nil
		})
		sc.Step(stepRE(`^a second frontend connection decides "([^"]+)" with (ALLOW|DENY) and "([^"]+)" with (ALLOW|DENY) in one frontend/decide before the frontend answers the other way$`), d.decideTogether)
		sc.Step(stepRE(`^a second frontend connection answers "([^"]+)" with "([^"]*)" and "([^"]+)" with "([^"]*)" in one frontend/decide before the frontend answers "([^"]*)"$`), di.answerTogether)
		sc.Step(stepRE(`^a second frontend connection answers the interactive tool "([^"]+)" with "([^"]*)" before the frontend fails its request$`), func(tool, response string) error {
			s.World.AnswerInteractiveFirst(tool, secondConnection, response, fakes.Interactive{Fail: "the primary screen went away"})
			return nil
		})
		sc.Step(stepRE(`^a second frontend connection answers the call to "([^"]+)" with "([^"]*)" while "([^"]+)" runs$`), func(interactive, response, tool string) error {
			s.World.AnswerWhileRunning(tool, interactive, secondConnection, response)
			return nil
		})
		sc.Step(stepRE(`^the harness cancels the session while the permission request about "([^"]+)" is pending, and a second frontend connection allows it while "([^"]+)" is dispatched$`), func(tool, subscriber string) error {
			s.World.DecideAfterCancel(tool, secondConnection, wire.DecisionAllow, subscriber, s.env.Scale(afterCancelWait))
			return nil
		})
		// Checks.
		sc.Step(stepRE(`^the second frontend connection's decision on "([^"]+)" after the cancellation was rejected$`), s.proves(d.rejectedAfterCancel, "PA-16"))
		sc.Step(stepRE(`^the second frontend connection's decision on "([^"]+)" was refused with a category of the kernel's own$`), s.proves(d.refusedForContent, "PA-19"))
		sc.Step(stepRE(`^the second frontend connection's answer to "([^"]+)" was rejected as an invalid client event$`), s.proves(di.rejected, "PA-16"))
		sc.Step(stepRE(`^the second frontend connection's first answer to "([^"]+)" was accepted and its second, in the same frontend/decide, rejected as an invalid client event$`), s.proves(di.firstOfTwoStands, "PA-16"))
		sc.Step(stepRE(`^model request (\d+) holds an error result, not an answer, for the call to "([^"]+)"$`), s.proves(d.errorResult, "PA-15"))
	})
}

// afterCancelWait bounds how long the harness waits, after it cancelled the
// session, for the kernel to dispatch session-end.
const afterCancelWait = 10 * time.Second

var oppositeDecision = map[string]string{wire.DecisionAllow: wire.DecisionDeny, wire.DecisionDeny: wire.DecisionAllow}

// decideTogether: one frontend/decide with a decision for each of two
// tools' items; the primary answers each the other way, late.
func (d *decideArea) decideTogether(toolA, decA, toolB, decB string) error {
	d.s.World.DecideTogether(secondConnection,
		[]fakes.ToolDecision{{Tool: toolA, Decision: decA}, {Tool: toolB, Decision: decB}},
		map[string]fakes.Permission{
			toolA: {Decision: oppositeDecision[decA], Scope: wire.ScopeOnce},
			toolB: {Decision: oppositeDecision[decB], Scope: wire.ScopeOnce},
		})
	return nil
}

// answerTogether: one frontend/decide answering two interactive tools'
// calls, sent while the primary's request about the first is pending.
func (d *decideInteractive) answerTogether(toolA, ansA, toolB, ansB, primary string) error {
	d.s.World.AnswerTogetherFirst(toolA, secondConnection,
		[]fakes.ToolAnswer{{Tool: toolA, Response: ansA}, {Tool: toolB, Response: ansB}},
		fakes.Interactive{Answer: primary})
	return nil
}

// PA-19 (and PROTOCOL.md §6.7): a decision the kernel must refuse for what
// it says (an ALWAYS it cannot keep) is not accepted, and its outcome says
// why with a category (outcomes checks that every refusal has one).
func (d *decideArea) refusedForContent(tool string) error {
	os, err := d.outcomes(tool)
	if err != nil {
		return err
	}
	for _, o := range os {
		if o.Accepted {
			return fmt.Errorf("the kernel accepted the second frontend connection's decision on %s (%q), which it had to refuse (an ALWAYS scope without a policy store is never quietly kept as a shorter one)", o.PlanItemID, tool)
		}
	}
	return nil
}

// PA-16, interactive half: an answer to a call that no longer waits (its
// request is over) is rejected, never taken.
func (d *decideInteractive) rejected(tool string) error {
	os, err := d.outcomes(tool)
	if err != nil {
		return err
	}
	for _, o := range os {
		if err := d.rejectedOne(o, tool, "sent after the call's frontend/interactive was over"); err != nil {
			return err
		}
	}
	return nil
}

// rejectedOne: o is a rejection with INVALID_CLIENT_EVENT, reported by a
// frontend_error event (PROTOCOL.md §6.7: never dropped without a word).
func (d *decideInteractive) rejectedOne(o wire.InteractiveOutcome, tool, when string) error {
	switch {
	case o.Accepted:
		return fmt.Errorf("expected the second frontend connection's answer to call %s (%q), %s, to be rejected with %s; the kernel accepted it",
			o.CallID, tool, when, wire.FrontendErrInvalidClientEvent)
	case o.Category != wire.FrontendErrInvalidClientEvent:
		return fmt.Errorf("expected the second frontend connection's answer to call %s (%q) to be rejected with category %s, the kernel gave %q (%s)",
			o.CallID, tool, wire.FrontendErrInvalidClientEvent, o.Category, o.Message)
	case !d.reported(o.CallID):
		return fmt.Errorf("the kernel rejected the second frontend connection's answer to call %s (%q) but sent no %s event naming connection %q and call_id %s (frontend_error events: %s)",
			o.CallID, tool, wire.EventFrontendError, secondConnection, o.CallID, (&decideArea{s: d.s}).frontendErrors())
	}
	return nil
}

// PA-16: one frontend/decide answering the same waiting call twice. Only
// the first answer to a call counts (§6.7): it is accepted, and the second,
// in the same request, comes after it and is rejected like any late one.
func (d *decideInteractive) firstOfTwoStands(tool string) error {
	os, err := d.outcomes(tool)
	if err != nil {
		return err
	}
	if len(os) != 2 || os[0].CallID != os[1].CallID {
		return fmt.Errorf("expected two outcomes for the second frontend connection's two answers to one call of %q, in one frontend/decide; the kernel's outcomes: %+v", tool, os)
	}
	if !os[0].Accepted {
		return fmt.Errorf("expected the second frontend connection's first answer to call %s (%q), sent while the call waited, to answer it; the kernel rejected it with %q (%s)", os[0].CallID, tool, os[0].Category, os[0].Message)
	}
	return d.rejectedOne(os[1], tool, "the second answer to it in the same frontend/decide")
}

// reported says whether a frontend_error event of the session names the
// second connection and call id.
func (d *decideInteractive) reported(callID string) bool {
	for _, fe := range d.s.eventEntries(d.s.SessionID, wire.EventFrontendError) {
		ev := fe.Value.(wire.Event)
		if payloadString(ev, "call_id") == callID && payloadString(ev, "connection") == secondConnection {
			return true
		}
	}
	return false
}

// PA-15: the human's answer is the call's result; a call nobody answered
// (its frontend/interactive failed) has none, and its result is an error,
// never an ordinary result that looks like an answer.
func (d *decideArea) errorResult(nth, tool string) error {
	p := &planArea{s: d.s}
	if err := d.s.mustHaveRun(); err != nil {
		return err
	}
	rs, err := p.resultsFor(nth, tool)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if !r.IsError {
			return fmt.Errorf("expected an error result for the call %s to %q in model request %s (nobody answered it), it is an ordinary result %q", r.ToolUseID, tool, nth, r.Content)
		}
		// error_category is optional, but a category the kernel names must
		// be the call's: the frontend failed it, nobody cancelled it.
		if r.ErrorCategory == wire.ToolErrCancelled {
			return fmt.Errorf("the error result for the call %s to %q in model request %s is categorised %q, but nobody cancelled the call: the frontend failed it", r.ToolUseID, tool, nth, r.ErrorCategory)
		}
	}
	return nil
}

// PA-16 (PROTOCOL.md §6.7): once the session was cancelled and the kernel
// gave up on a pending item, the item no longer awaits a decision: a
// decision sent while the session ends is rejected with
// INVALID_CLIENT_EVENT, or, by a kernel that no longer serves the ending
// session, answered -32005. It is never accepted.
func (d *decideArea) rejectedAfterCancel(tool string) error {
	s := d.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ids := d.itemsOf(tool)
	for _, r := range s.World.Frontend.Decisions(s.env.Scale(decideWait)) {
		mine := false
		for _, dec := range r.Params.Decisions {
			mine = mine || ids[dec.PlanItemID]
		}
		if !mine {
			continue
		}
		var rerr *jsonrpc.Error
		if r.Answered && errors.As(r.Err, &rerr) && rerr.Code == wire.CodeUnknownSession {
			return nil // the ending session takes no decisions at all
		}
		if err := decideAnswered(r, tool); err != nil {
			return err
		}
		if len(r.Result.Results) != len(r.Params.Decisions) {
			return fmt.Errorf("the second frontend connection sent %d decisions in frontend/decide (#%d), the kernel answered %d outcome(s): %+v (PROTOCOL.md §6.7: one per decision, in order)",
				len(r.Params.Decisions), r.Seq, len(r.Result.Results), r.Result.Results)
		}
		for _, o := range r.Result.Results {
			if err := categorized(r.Seq, o.Accepted, o.PlanItemID, o.Category); err != nil {
				return err
			}
			switch {
			case o.Accepted:
				return fmt.Errorf("the kernel accepted the second frontend connection's decision on %s (%q), sent after the session was cancelled and the kernel had withdrawn its permission request: an item the kernel gave up on no longer awaits a decision", o.PlanItemID, tool)
			case o.Category != wire.FrontendErrInvalidClientEvent:
				return fmt.Errorf("expected the second frontend connection's decision on %s (%q), sent after the cancellation, to be rejected with category %s, the kernel gave %q (%s)", o.PlanItemID, tool, wire.FrontendErrInvalidClientEvent, o.Category, o.Message)
			}
		}
		return nil
	}
	return notReached("no decision about %q was sent: the kernel did not withdraw its permission request and dispatch session-end after the cancellation", tool)
}
