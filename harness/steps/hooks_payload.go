package steps

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentconform/conform/spec/wire"
)

// The content of a point's payload variant (HD-17: every dispatch carries
// the variant of its point, PROTOCOL.md §9 HookPayload): the call of
// pre-tool-call and post-tool-call is the call as the tool was declared
// (ToolCall: id, name, provider, kind, all required), and the plan of
// post-apply holds one item per resource call the turn ran.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^every pre-tool-call and post-tool-call payload named its call's tool, kind and provider as declared$`), s.proves(s.toolCallPayloads, "HD-17"))
		sc.Step(stepRE(`^every post-apply payload listed a plan item for each resource call its turn ran$`), s.proves(s.postApplyPlans, "HD-17"))
	})
}

// toolCallPayloads: each tool-call payload's call names a declared tool
// with that tool's provider and kind, and the id of a call of the model's
// replies.
func (s *Scenario) toolCallPayloads() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ids := map[string]bool{}
	for _, e := range s.modelEntries() {
		for _, c := range replyCalls(e) {
			ids[c.ID] = true
		}
	}
	seen := 0
	for _, e := range s.hookRequests() {
		p, ok := e.Value.(wire.HookDispatchParams)
		if !ok || (p.Point != wire.PointPreToolCall && p.Point != wire.PointPostToolCall) || p.CallContext.SessionID != s.SessionID {
			continue
		}
		seen++
		c := p.Payload.Call
		if c == nil {
			return fmt.Errorf("the %s dispatch to %q (#%d) carries no call", p.Point, p.Subscriber, e.Seq)
		}
		i := slices.IndexFunc(s.Cfg.Tools, func(t wire.ToolSchema) bool { return t.Name == c.Name })
		switch {
		case i < 0:
			return fmt.Errorf("the %s dispatch to %q (#%d) names the call's tool %q, which the session does not declare", p.Point, p.Subscriber, e.Seq, c.Name)
		case c.Provider != s.Cfg.Tools[i].Provider:
			return fmt.Errorf("the %s dispatch to %q (#%d) says the call to %q is of provider %q; the tool is declared by provider %q", p.Point, p.Subscriber, e.Seq, c.Name, c.Provider, s.Cfg.Tools[i].Provider)
		case c.Kind != s.Cfg.Tools[i].Kind:
			return fmt.Errorf("the %s dispatch to %q (#%d) says the call to %q is of kind %q; the tool is declared %q", p.Point, p.Subscriber, e.Seq, c.Name, c.Kind, s.Cfg.Tools[i].Kind)
		case !ids[c.ID]:
			return fmt.Errorf("the %s dispatch to %q (#%d) names call id %q, which no model reply carried", p.Point, p.Subscriber, e.Seq, c.ID)
		}
	}
	if seen == 0 {
		return notReached("no pre-tool-call or post-tool-call dispatch reached the harness")
	}
	return nil
}

// postApplyPlans: the post-apply plan of a turn holds an item for every
// resource call the turn carried out (a tool/invoke with its call id), and
// no item for a call the turn's reply did not make.
func (s *Scenario) postApplyPlans() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	seen := 0
	for ti, turn := range s.turns() {
		made, ran := map[string]bool{}, map[string]bool{}
		var order []string
		for _, e := range turn {
			switch v := e.Value.(type) {
			case wire.ModelStreamParams:
				for _, c := range replyCalls(e) {
					if s.toolKind(c.Name) == wire.KindResource {
						made[c.ID] = true
					}
				}
			case wire.ToolInvokeParams:
				if made[v.CallID] && !ran[v.CallID] {
					ran[v.CallID] = true
					order = append(order, v.CallID)
				}
			case wire.HookDispatchParams:
				if v.Point != wire.PointPostApply {
					continue
				}
				seen++
				if v.Payload.Plan == nil {
					return fmt.Errorf("the post-apply dispatch to %q of turn %d (#%d) carries no plan", v.Subscriber, ti, e.Seq)
				}
				listed := map[string]bool{}
				for _, it := range v.Payload.Plan.Items {
					if !made[it.ToolCallID] {
						return fmt.Errorf("the post-apply plan of turn %d (#%d) lists tool_call_id %q, which is no resource call of that turn's reply", ti, e.Seq, it.ToolCallID)
					}
					listed[it.ToolCallID] = true
				}
				var missing []string
				for _, id := range order {
					if !listed[id] {
						missing = append(missing, id)
					}
				}
				if len(missing) > 0 {
					return fmt.Errorf("the post-apply plan of turn %d (#%d) lists %d items and leaves out the resource calls %s, which the turn ran", ti, e.Seq, len(v.Payload.Plan.Items), strings.Join(missing, ", "))
				}
			}
		}
	}
	if seen == 0 {
		return notReached("no post-apply dispatch reached the harness")
	}
	return nil
}
