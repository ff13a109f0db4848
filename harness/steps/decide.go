package steps

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// PA-16: only the first decision for a pending item counts. The kernel's
// frontend/permission goes to the primary frontend connection; the harness
// plays a second connection that sends frontend/decide (PROTOCOL.md §6.7),
// timed from the log: while the primary's permission request is pending, or
// while the allowed item's tool/invoke is in flight. No sleeps.

// secondConnection is the name the harness's second frontend connection
// sends its decisions under.
const secondConnection = "second"

// decideWait bounds how long a check waits for the kernel's answer to a
// frontend/decide that was still in flight when the session ended.
const decideWait = 5 * time.Second

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		d := &decideArea{s: s}
		// Setup.
		sc.Step(stepRE(`^a second frontend connection decides "([^"]+)" with (ALLOW|DENY) before the frontend answers (ALLOW|DENY)$`), d.decideFirst)
		sc.Step(stepRE(`^a second frontend connection decides "([^"]+)" with (ALLOW|DENY) while the tool runs$`), d.decideWhileRunning)
		// Checks.
		sc.Step(stepRE(`^the second frontend connection's decision on "([^"]+)" was rejected as an invalid client event$`), s.proves(d.rejected, "PA-16"))
		sc.Step(stepRE(`^the second frontend connection's decision on "([^"]+)" was accepted$`), s.proves(d.accepted, "PA-16"))
		sc.Step(stepRE(`^the frontend's late answer about "([^"]+)" was withdrawn by the kernel or rejected with a frontend_error event naming connection "primary"$`), s.proves(d.lateAnswerRefused, "PA-16"))
	})
}

type decideArea struct{ s *Scenario }

func (d *decideArea) decideFirst(tool, second, primary string) error {
	d.s.World.DecideFirst(tool, secondConnection, second, fakes.Permission{Decision: primary, Scope: wire.ScopeOnce})
	return nil
}

func (d *decideArea) decideWhileRunning(tool, decision string) error {
	d.s.World.DecideWhileRunning(tool, secondConnection, decision)
	return nil
}

// itemsOf are the plan item ids of a tool's calls the frontend was asked
// about.
func (d *decideArea) itemsOf(tool string) map[string]bool {
	ids := map[string]bool{}
	for _, a := range d.s.permissionItems(d.s.SessionID) {
		if a.item.Tool == tool {
			ids[a.item.ID] = true
		}
	}
	return ids
}

// outcomes are the kernel's answers to the second connection's decisions
// about a tool's items; an error answer (method not found from a kernel
// that does not serve frontend/decide) fails the check with what the kernel
// said.
func (d *decideArea) outcomes(tool string) ([]wire.DecisionOutcome, error) {
	s := d.s
	if err := s.mustHaveRun(); err != nil {
		return nil, err
	}
	ids := d.itemsOf(tool)
	if len(ids) == 0 {
		return nil, fmt.Errorf("the frontend received no permission request about %q, so no plan item was there for a second frontend connection to decide", tool)
	}
	var out []wire.DecisionOutcome
	sent := 0
	for _, r := range s.World.Frontend.Decisions(s.env.Scale(decideWait)) {
		mine := false
		for _, dec := range r.Params.Decisions {
			mine = mine || ids[dec.PlanItemID]
		}
		if !mine {
			continue
		}
		sent++
		if err := decideAnswered(r, tool); err != nil {
			return nil, err
		}
		for _, o := range r.Result.Results {
			if err := categorized(r.Seq, o.Accepted, o.PlanItemID, o.Category); err != nil {
				return nil, err
			}
			if ids[o.PlanItemID] {
				out = append(out, o)
			}
		}
		if len(r.Result.Results) != len(r.Params.Decisions) {
			return nil, fmt.Errorf("the second frontend connection sent %d decision(s) in frontend/decide (#%d), the kernel answered %d outcome(s): %+v",
				len(r.Params.Decisions), r.Seq, len(r.Result.Results), r.Result.Results)
		}
	}
	if sent == 0 {
		return nil, fmt.Errorf("the second frontend connection sent no decision about %q (it sends one while the kernel's permission request about it is pending, or while the allowed call runs; neither happened)", tool)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the kernel's answer to the second frontend connection's decision about %q has no outcome for its plan item", tool)
	}
	return out, nil
}

func (d *decideArea) rejected(tool string) error {
	os, err := d.outcomes(tool)
	if err != nil {
		return err
	}
	for _, o := range os {
		switch {
		case o.Accepted:
			return fmt.Errorf("expected the second frontend connection's late decision on %s (%q) to be rejected with %s, since the primary connection had decided the item first; the kernel accepted it",
				o.PlanItemID, tool, wire.FrontendErrInvalidClientEvent)
		case o.Category != wire.FrontendErrInvalidClientEvent:
			return fmt.Errorf("expected the second frontend connection's late decision on %s (%q) to be rejected with category %s, the kernel gave category %q (%s)",
				o.PlanItemID, tool, wire.FrontendErrInvalidClientEvent, o.Category, o.Message)
		}
	}
	return nil
}

func (d *decideArea) accepted(tool string) error {
	os, err := d.outcomes(tool)
	if err != nil {
		return err
	}
	for _, o := range os {
		if !o.Accepted {
			return fmt.Errorf("expected the second frontend connection's decision on %s (%q), sent while the kernel's permission request was still unanswered, to decide the item; "+
				"the kernel rejected it with %q (%s)", o.PlanItemID, tool, o.Category, o.Message)
		}
	}
	return nil
}

// lateAnswerRefused: once the second connection decided the item, the
// primary's later answer about it must not pass silently. The kernel either
// withdrew the permission request ($/cancelRequest: the fake saw its request
// cancelled) or rejected that answer's decision with a frontend_error event
// naming connection "primary" and the item.
func (d *decideArea) lateAnswerRefused(tool string) error {
	s := d.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	asked := s.permissionItems(s.SessionID)
	n := 0
	for _, a := range asked {
		if a.item.Tool != tool {
			continue
		}
		n++
		if a.entry.Answered() && a.entry.Err == context.Canceled.Error() {
			continue // withdrawn by the kernel
		}
		found := false
		for _, e := range s.eventEntries(s.SessionID, wire.EventFrontendError) {
			ev := e.Value.(wire.Event)
			if payloadString(ev, "plan_item_id") == a.item.ID && payloadString(ev, "connection") == wire.ConnectionPrimary {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("the primary frontend connection answered the permission request #%d about %s (%q) after the second connection had decided that item, "+
				"and the kernel neither withdrew the request nor reported the late answer with a %s event naming connection %q and plan_item_id %s: a late decision passed silently (frontend_error events: %s)",
				a.entry.Seq, a.item.ID, tool, wire.EventFrontendError, wire.ConnectionPrimary, a.item.ID, d.frontendErrors())
		}
	}
	if n == 0 {
		return fmt.Errorf("the frontend received no permission request about %q", tool)
	}
	return nil
}

func (d *decideArea) frontendErrors() string {
	var out []string
	for _, e := range d.s.eventEntries(d.s.SessionID, wire.EventFrontendError) {
		out = append(out, fmt.Sprintf("#%d %s", e.Seq, plain.JSON(e.Value.(wire.Event).Payload)))
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, "; ")
}

// decideAnswered says why the kernel's answer to one frontend/decide about
// a tool is not a list of outcomes: none came, or an error did. A
// method-not-found answer is a failure of PA-16, not a fault: the kernel
// takes nothing from a second frontend connection.
func decideAnswered(r fakes.SentDecide, tool string) error {
	var rerr *jsonrpc.Error
	switch {
	case !r.Answered:
		return fmt.Errorf("the kernel never answered the second frontend connection's frontend/decide (#%d) about %q", r.Seq, tool)
	case errors.As(r.Err, &rerr) && rerr.Code == wire.CodeMethodNotFound:
		return fmt.Errorf("the kernel answered the second frontend connection's frontend/decide (#%d) with method not found (%s): "+
			"it takes nothing from a second frontend connection, so it can neither let the first decision or answer win nor reject a late one with INVALID_CLIENT_EVENT", r.Seq, rerr.Message)
	case r.Err != nil:
		return fmt.Errorf("the kernel answered the second frontend connection's frontend/decide (#%d) with an error instead of an outcome per decision or answer: %v", r.Seq, r.Err)
	}
	return nil
}

// categorized: PROTOCOL.md §6.7 gives every outcome that is not accepted a
// category, the one thing that tells the sender why.
func categorized(seq int, accepted bool, id, category string) error {
	if !accepted && category == "" {
		return fmt.Errorf("the kernel's answer to the second frontend connection's frontend/decide (#%d) rejects %s without a category (an outcome that is not accepted carries one, PROTOCOL.md §6.7)", seq, id)
	}
	return nil
}
