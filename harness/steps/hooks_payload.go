package steps

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// The content of a point's payload variant (HD-17: every dispatch carries
// the variant of its point, PROTOCOL.md §9 HookPayload): the call of
// pre-tool-call and post-tool-call is the call as the tool was declared
// (ToolCall: id, name, provider, kind, all required), and the plan of
// post-apply holds one item per resource call the turn ran. The call's
// input (ToolCall input: "The arguments") and a plan item's input
// (PlanItem input: "The call's arguments") are the arguments the model gave
// the call: a payload that drops or blanks them tells a subscriber nothing
// of what is about to run.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^every pre-tool-call and post-tool-call payload named its call's tool, kind and provider as declared$`), s.proves(s.toolCallPayloads, "HD-17"))
		sc.Step(stepRE(`^every post-apply payload listed a plan item for each resource call its turn ran$`), s.proves(s.postApplyPlans, "HD-17"))
		sc.Step(stepRE(`^every pre-tool-call and post-tool-call payload carried its call's input as the model gave it$`), s.proves(s.toolCallPayloadInputs, "HD-17"))
		sc.Step(stepRE(`^every plan item of the plan-ready and post-apply payloads carried its call's input as the model gave it$`), s.proves(s.planItemInputs, "HD-17"))
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
	ds := s.sessionDispatchesAt(wire.PointPreToolCall, wire.PointPostToolCall)
	for _, d := range ds {
		e, p := d.e, d.p
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
	if len(ds) == 0 {
		return notReached("no pre-tool-call or post-tool-call dispatch reached the harness")
	}
	return nil
}

// dispatch is one hook/dispatch request and its params.
type dispatch struct {
	e calllog.Entry
	p wire.HookDispatchParams
}

// sessionDispatchesAt are the scenario session's hook dispatches at the
// points, in the order they arrived.
func (s *Scenario) sessionDispatchesAt(points ...string) []dispatch {
	var out []dispatch
	for _, e := range s.hookRequests() {
		if p, ok := e.Value.(wire.HookDispatchParams); ok && slices.Contains(points, p.Point) && p.CallContext.SessionID == s.SessionID {
			out = append(out, dispatch{e, p})
		}
	}
	return out
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

// callInputs are the arguments each call was given: by the model's reply
// (absent when its tool_call carried none) and by every tool/invoke of it
// (a corrected_input replaces the arguments, PROTOCOL.md §7.4, so a payload
// after the correction may carry those).
type callInputs struct {
	model   map[string]json.RawMessage
	invoked map[string][]json.RawMessage
}

func (s *Scenario) callInputs() callInputs {
	in := callInputs{model: map[string]json.RawMessage{}, invoked: map[string][]json.RawMessage{}}
	for _, e := range s.modelEntries() {
		for _, c := range replyCalls(e) {
			in.model[c.ID] = c.Input
		}
	}
	for _, e := range s.requests() {
		if p, ok := e.Value.(wire.ToolInvokeParams); ok {
			in.invoked[p.CallID] = append(in.invoked[p.CallID], p.Input)
		}
	}
	return in
}

// judge says what is wrong with got as the input of call id, "" when it
// is the model's arguments or those of one of the call's invokes. A call
// the model gave no input has no arguments: {} or null both say so.
func (in callInputs) judge(id string, got json.RawMessage) string {
	want, ok := in.model[id]
	if !ok {
		return fmt.Sprintf("names call %s, which no model reply carried", id)
	}
	if sameInput(want, got) || slices.ContainsFunc(in.invoked[id], func(inv json.RawMessage) bool { return sameInput(inv, got) }) {
		return ""
	}
	return fmt.Sprintf("carries the input %s for call %s; the model gave the call %s", inputText(got), id, inputText(want))
}

// sameInput compares two inputs as JSON values; no input, null and {} are
// all a call without arguments.
func sameInput(a, b json.RawMessage) bool {
	none := func(x json.RawMessage) bool {
		return len(x) == 0 || string(x) == "null" || emptyObject(x)
	}
	if none(a) || none(b) {
		return none(a) && none(b)
	}
	return sameJSON(a, b)
}

// toolCallPayloadInputs: the call of each pre-tool-call and post-tool-call
// payload carries the arguments the model gave it (PROTOCOL.md §9
// ToolCall).
func (s *Scenario) toolCallPayloadInputs() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	in := s.callInputs()
	seen := 0
	for _, d := range s.sessionDispatchesAt(wire.PointPreToolCall, wire.PointPostToolCall) {
		if d.p.Payload.Call == nil {
			continue // toolCallPayloads' failure, not this check's
		}
		seen++
		if why := in.judge(d.p.Payload.Call.ID, d.p.Payload.Call.Input); why != "" {
			return fmt.Errorf("the %s dispatch to %q (#%d) %s", d.p.Point, d.p.Subscriber, d.e.Seq, why)
		}
	}
	if seen == 0 {
		return notReached("no pre-tool-call or post-tool-call dispatch with a call reached the harness")
	}
	return nil
}

// planItemInputs: each item of a plan-ready or post-apply plan carries the
// arguments of the call it stands for (PROTOCOL.md §9 PlanItem).
func (s *Scenario) planItemInputs() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	in := s.callInputs()
	seen := 0
	for _, d := range s.sessionDispatchesAt(wire.PointPlanReady, wire.PointPostApply) {
		if d.p.Payload.Plan == nil {
			continue
		}
		for _, it := range d.p.Payload.Plan.Items {
			seen++
			if why := in.judge(it.ToolCallID, it.Input); why != "" {
				return fmt.Errorf("the %s dispatch to %q (#%d): its plan item %q %s", d.p.Point, d.p.Subscriber, d.e.Seq, it.ID, why)
			}
		}
	}
	if seen == 0 {
		return notReached("no plan-ready or post-apply payload listed a plan item")
	}
	return nil
}
