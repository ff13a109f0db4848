package steps

import (
	"encoding/json"
	"fmt"

	"github.com/cucumber/godog"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// PA-03 in a child session (issue 29): a child's resource calls go through
// the same gate as the root's. A kernel that attaches its policy to the
// top-level agent only runs a child's denied call. What the child's model
// asked for and what ran are read from the log.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc *godog.ScenarioContext) {
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
		if !e.Answered() {
			continue
		}
		var r wire.ModelStreamResult
		if json.Unmarshal(e.Result, &r) != nil {
			continue
		}
		for _, ev := range r.Events {
			if ev.Type == wire.EventToolCall && ev.Name == tool {
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
