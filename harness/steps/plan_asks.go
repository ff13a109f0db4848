package steps

import (
	"fmt"
	"strconv"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// Asks that get no usable answer (PA-03, PA-19, A-37): a permission request
// that fails, an answer that leaves an item out, and answers the kernel
// must refuse every time. None of them may let an item run; each denied
// item's tool_result says why (denialTies).

// readingMaxAsks is how often the kernel asks about one item whose answers
// it had to refuse before it denies the item.
const readingMaxAsks = "plan.max_asks"

// undeclaredAskLimit: a kernel that declares no plan.max_asks keeps the
// item pending until a usable decision comes (A-37's reading); the harness
// sends one (DENY, ONCE) with its request number undeclaredAskLimit+1, so
// that the scenario ends.
const undeclaredAskLimit = 10

// permissionFailure is the message of the fake frontend's error answer. It
// names no decider on purpose: a denial has to say that the request failed.
const permissionFailure = "no screen could show the request"

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		p := &planArea{s: s}
		sc.Step(stepRE(`^the frontend (first |then )?fails the permission request about "([^"]+)"$`), func(when, tool string) error {
			p.addAnswer(when, tool, fakes.Permission{Fail: permissionFailure})
			return nil
		})
		sc.Step(stepRE(`^the frontend (first |then )?leaves "([^"]+)" out of its permission answer$`), func(when, tool string) error {
			p.addAnswer(when, tool, fakes.Permission{Omit: true})
			return nil
		})
		sc.Step(stepRE(`^the frontend answers permission for "([^"]+)" with ALLOW and scope ALWAYS until the kernel stops asking$`), p.alwaysUntilLimit)
		sc.Step(stepRE(`^the tool "([^"]+)" declares no input schema$`), func(tool string) error {
			t, err := p.tool(tool)
			if err != nil {
				return err
			}
			t.InputSchema = nil
			return nil
		})
		sc.Step(stepRE(`^the frontend was asked about "([^"]+)" as often as the kernel's plan.max_asks says$`), s.proves(p.askedUpToLimit, "PA-19"))
		sc.Step(stepRE(`^model request (\d+) holds a denial with a reason for the call to "([^"]+)", unless the kernel ran it$`), s.proves(p.denialUnlessRan, "PA-03"))
	})
}

// askLimit is the kernel's plan.max_asks, or undeclared.
func (p *planArea) askLimit() (n int, declared bool, err error) {
	v, ok := p.s.env.Info.Readings[readingMaxAsks]
	if !ok || v == "" {
		return 0, false, nil
	}
	n, err = strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, true, fmt.Errorf("the kernel declares %s = %q, which is not a positive number of requests", readingMaxAsks, v)
	}
	return n, true, nil
}

// alwaysUntilLimit answers ALWAYS (which a kernel without a policy store
// must refuse) as often as the kernel asks within its limit, then DENY
// once, so that a kernel that asks once more than it declares, or one that
// never stops, still ends. A kernel that waits for another connection
// after a refusal (plan.refused_decision = pending) gets the DENY by
// frontend/decide.
func (p *planArea) alwaysUntilLimit(tool string) error {
	always := fakes.Permission{Decision: wire.DecisionAllow, Scope: wire.ScopeAlways}
	deny := fakes.Permission{Decision: wire.DecisionDeny, Scope: wire.ScopeOnce}
	if p.s.env.Info.Readings[readingRefusedDecision] == "pending" {
		p.addAnswer("first ", tool, always)
		p.addAnswer("then ", tool, deny)
		return nil
	}
	n, declared, err := p.askLimit()
	if err != nil || !declared {
		n = undeclaredAskLimit
	}
	for range n {
		p.s.World.Frontend.AddPermission(tool, always)
	}
	p.s.World.Frontend.AddPermission(tool, deny)
	return nil
}

// PA-19 with A-37: a refused answer leaves the item pending and it is asked
// again, exactly as often as the kernel's plan.max_asks says; undeclared,
// until a usable decision comes.
func (p *planArea) askedUpToLimit(tool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if s.env.Info.Readings[readingRefusedDecision] == "pending" {
		return notReached("the kernel reads %s = pending: after a refusal it waits for another connection instead of asking again", readingRefusedDecision)
	}
	n, declared, err := p.askLimit()
	if err != nil {
		return err
	}
	var at []string
	for _, a := range s.permissionItems(s.SessionID) {
		if a.item.Tool == tool {
			at = append(at, fmt.Sprintf("#%d", a.entry.Seq))
		}
	}
	if len(at) == 0 {
		return fmt.Errorf("expected the frontend to be asked about %q, it never was", tool)
	}
	if declared {
		if len(at) != n {
			return fmt.Errorf("expected the frontend to be asked about %q exactly %s, as the kernel's %s = %d says (every answer was an ALWAYS it must refuse), it was asked %s",
				tool, plain.Count(n, "time"), readingMaxAsks, n, asked(at))
		}
		return nil
	}
	if len(at) != undeclaredAskLimit+1 {
		return fmt.Errorf("the kernel declares no %s, so a refused item stays pending until a usable decision comes (A-37); the harness refused to give one before its request %d, and the kernel asked about %q %s",
			readingMaxAsks, undeclaredAskLimit+1, tool, asked(at))
	}
	return nil
}

// denialUnlessRan is PA-03's check of a call the kernel should have denied
// for a reason another requirement judges (a kernel that kept a refused
// ALWAYS and ran the item fails PA-19, not PA-03): a call that ran has no
// denial to read.
func (p *planArea) denialUnlessRan(nth, tool string) error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	for _, id := range p.s.callIDsOf(tool) {
		if how, ran := p.s.ranCall(id); ran {
			return notReached("the call %s to %q was not denied: the kernel %s, so there is no denial to read", id, tool, how)
		}
	}
	return p.denialWithReason(nth, tool)
}
