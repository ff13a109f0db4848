package steps

import (
	"fmt"
	"strings"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// Per-session clauses checked in a session tree (issue 29).
//
// PA-03 in a child session: a child's resource calls go through
// the same gate as the root's. A kernel that attaches its policy to the
// top-level agent only runs a child's denied call. What the child's model
// asked for and what ran are read from the log.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the subscribers at "([^"]+)" of the "([^"]+)" (child|grandchild) were dispatched in this order: (.+)$`), s.proves(s.childHookOrder, "HD-01"))
		sc.Step(stepRE(`^the "([^"]+)" (child|grandchild) ended completed with its model request (\d+), whose reply had no tool call$`), s.proves(s.childImplicitDone, "TA-10"))
		sc.Step(stepRE(`^the "([^"]+)" (child|grandchild)'s call to "([^"]+)" never ran and its next model request holds a denial naming "([^"]+)"$`), s.proves(s.childDenial, "PA-03"))
	})
}

func (s *Scenario) childDenial(profile, rel, tool, decider string) error {
	id, _, err := s.saOne(profile, rel)
	if err != nil {
		return err
	}
	asked := map[string]int{} // call id → the seq of the reply asking for it
	var models []calllog.Entry
	for _, e := range s.saRequests(id, wire.MethodModelStream) {
		models = append(models, e)
		for _, ev := range replyCalls(e) {
			if ev.Name == tool {
				asked[ev.ID] = e.Seq
			}
		}
	}
	if len(asked) == 0 {
		return notReached("the %q %s (%s) never asked for %q", profile, rel, id, tool)
	}
	for _, e := range s.saRequests(id, wire.MethodToolInvoke) {
		if p := e.Value.(wire.ToolInvokeParams); p.Tool == tool {
			if _, ok := asked[p.CallID]; ok {
				return fmt.Errorf("the %q %s (%s) ran its denied call %s to %q (#%d): the policy rule %q denies it in every session", profile, rel, id, p.CallID, tool, e.Seq, decider)
			}
		}
	}
	for call, at := range asked {
		var next *wire.ModelStreamParams
		for _, e := range models {
			if e.Seq > at {
				p := e.Value.(wire.ModelStreamParams)
				next = &p
				break
			}
		}
		if next == nil {
			return notReached("the %q %s (%s) sent no model request after asking for %q", profile, rel, id, tool)
		}
		var found *wire.ContentBlock
		for _, m := range next.Messages {
			for i := range m.Content {
				if b := m.Content[i]; b.Type == "tool_result" && b.ToolUseID == call {
					found = &b
				}
			}
		}
		switch {
		case found == nil:
			return fmt.Errorf("the %q %s's (%s) model request after its call %s to %q holds no tool_result for it", profile, rel, id, call, tool)
		case !containsWord(found.Content, decider):
			return fmt.Errorf("the denial of the %q %s's (%s) call %s to %q says %q, which does not name %q", profile, rel, id, call, tool, found.Content, decider)
		}
	}
	return nil
}

// HD-01 in a child or grandchild (issue 29): hooks are declared once in
// the session config and dispatched in every session of the tree; a
// child's chain keeps the declared order as the root's does.
func (s *Scenario) childHookOrder(point, profile, rel, list string) error {
	id, _, err := s.saOne(profile, rel)
	if err != nil {
		return err
	}
	want := quotedList(list)
	var chains [][]calllog.Entry
	for _, c := range HookChains(s.saRequests(id, "")) {
		if hookParams(c[0]).Point == point {
			chains = append(chains, c)
		}
	}
	if len(chains) == 0 {
		return fmt.Errorf("expected dispatches at %q in the %q %s (%s), the kernel sent none", point, profile, rel, id)
	}
	for i, c := range chains {
		if got := hookChainIDs(c); !s.hookSameOrder(point, want, got) {
			return fmt.Errorf("expected the %q %s's (%s) chain at %q to visit %s in that order; chain %d (from request #%d) visited %s",
				profile, rel, id, point, strings.Join(want, ", "), i+1, c[0].Seq, strings.Join(got, ", "))
		}
	}
	return nil
}

// TA-10 in a child or grandchild (issue 29): a reply without tool_use ends
// the session that got it, a child's too: the child sends no further model
// request and dispatches no tool-phase hook, and its end row says
// completed. Read from the log and the rows.
func (s *Scenario) childImplicitDone(profile, rel string, n int) error {
	id, t, err := s.saOne(profile, rel)
	if err != nil {
		return err
	}
	if n < 1 {
		return scenarioDefect("model requests are counted from 1")
	}
	models := s.saRequests(id, wire.MethodModelStream)
	if got := len(models); got != n {
		return fmt.Errorf("the %q %s (%s) sent %d model requests; its reply %d had no tool call and should have ended it there", profile, rel, id, got, n)
	}
	last := models[n-1].Seq
	for _, e := range s.saRequests(id, wire.MethodHookDispatch) {
		if e.Seq < last {
			continue // the tool turns before the final reply
		}
		switch p := hookParams(e).Point; p {
		case wire.PointPreToolCall, wire.PointPlanReady, wire.PointPostToolCall, wire.PointPostApply:
			return fmt.Errorf("the %q %s (%s) dispatched %q (#%d) after a reply without tool calls", profile, rel, id, p, e.Seq)
		}
	}
	if st := t.end[id].Status; st != wire.StatusCompleted {
		return fmt.Errorf("the %q %s (%s) ended %q; a reply without tool calls ends it completed", profile, rel, id, st)
	}
	return nil
}
