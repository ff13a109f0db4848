package steps

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentconform/conform/spec/wire"
)

// What a kernel passes on unchanged, and where a wrong value would go
// unseen by the checks of the order and the shape alone: the user's prompt
// into the first model request and the declared provider into each
// tool/invoke (TA-01: the turn's steps act on the session's own data), and
// the reply's stop reason into the post-model-response payload (HD-17:
// the payload variant of the point carries what PROTOCOL.md §9 lists).

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^model request 1 holds the user's prompt in a user text block$`), s.proves(s.promptInFirstRequest, "TA-01"))
		sc.Step(stepRE(`^every tool/invoke named its tool's provider as declared$`), s.proves(s.invokeProviders, "TA-01"))
		sc.Step(stepRE(`^every frontend/interactive carried its call's input$`), s.proves(s.interactiveInputs, "TA-01"))
		sc.Step(stepRE(`^every post-model-response payload carried its reply's stop reason$`), s.proves(s.postModelStopReasons, "HD-17"))
	})
}

// TA-01: the session's prompt reaches the model. A kernel may put context
// around it, so the prompt is looked for within a user text block.
func (s *Scenario) promptInFirstRequest() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	rs := s.modelRequests()
	if len(rs) == 0 {
		return notReached("the kernel sent no model request")
	}
	var users []string
	for _, m := range rs[0].Messages {
		for _, c := range m.Content {
			if m.Role != "user" || c.Type != wire.BlockText {
				continue
			}
			if strings.Contains(c.Text, s.Prompt) {
				return nil
			}
			users = append(users, c.Text)
		}
	}
	return fmt.Errorf("expected model request 1 to hold the session's prompt %q in a user text block; its user text blocks were %q", s.Prompt, users)
}

// TA-01: each tool/invoke of the session names the provider its tool was
// declared with (the fake tools answer whatever provider is named, so a
// wrong one is seen here only).
func (s *Scenario) invokeProviders() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	seen := 0
	for _, e := range s.requests() {
		p, ok := e.Value.(wire.ToolInvokeParams)
		if !ok || p.CallContext.SessionID != s.SessionID {
			continue
		}
		seen++
		i := slices.IndexFunc(s.Cfg.Tools, func(t wire.ToolSchema) bool { return t.Name == p.Tool })
		switch {
		case i < 0:
			return fmt.Errorf("the tool/invoke of call %s (#%d) names the tool %q, which the session does not declare", p.CallID, e.Seq, p.Tool)
		case p.Provider != s.Cfg.Tools[i].Provider:
			return fmt.Errorf("the tool/invoke of call %s (#%d) to %q names the provider %q; the tool is declared by provider %q", p.CallID, e.Seq, p.Tool, p.Provider, s.Cfg.Tools[i].Provider)
		}
	}
	if seen == 0 {
		return notReached("no tool/invoke reached the harness")
	}
	return nil
}

// HD-17: a post-model-response payload that carries a stop reason, after a
// model request and before the next, carries the one of the reply the
// harness streamed (its stop event). The field is optional; a kernel that
// sends it nowhere leaves HD-17 partial, naming this check.
func (s *Scenario) postModelStopReasons() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	es := s.requests()
	checked := 0
	want, n := "", 0
	for _, e := range es {
		switch p := e.Value.(type) {
		case wire.ModelStreamParams:
			if p.CallContext.SessionID != s.SessionID {
				continue
			}
			n++
			want = replyStopReason(e.Result)
		case wire.HookDispatchParams:
			if p.Point != wire.PointPostModelResponse || p.CallContext.SessionID != s.SessionID || want == "" {
				continue
			}
			if p.Payload.StopReason == "" {
				continue // optional: "sent when the kernel has them" (PROTOCOL.md §9)
			}
			checked++
			if p.Payload.StopReason != want {
				return fmt.Errorf("the post-model-response dispatch to %q (#%d) after model request %d carries the stop reason %q; the reply's stop event said %q", p.Subscriber, e.Seq, n, p.Payload.StopReason, want)
			}
		}
	}
	if checked == 0 {
		return notReached("no post-model-response payload after a reply with a stop event carried a stop_reason (the field is sent when the kernel has it, PROTOCOL.md §9): its value was not judged")
	}
	return nil
}

// replyStopReason is the stop reason of a model/stream result's stop
// event, "" without one.
func replyStopReason(result json.RawMessage) string {
	var r wire.ModelStreamResult
	if len(result) == 0 || json.Unmarshal(result, &r) != nil {
		return ""
	}
	for _, ev := range r.Events {
		if ev.Type == wire.EventStop {
			return ev.StopReason
		}
	}
	return ""
}

// TA-01: an interactive call reaches the frontend with the input the
// model gave it (the frontend/interactive is that call's invoke).
func (s *Scenario) interactiveInputs() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	given := map[string]json.RawMessage{}
	for _, e := range s.modelEntries() {
		for _, c := range replyCalls(e) {
			given[c.ID] = c.Input
		}
	}
	seen := 0
	for _, e := range s.requests() {
		p, ok := e.Value.(wire.InteractiveParams)
		if !ok || p.CallContext.SessionID != s.SessionID {
			continue
		}
		seen++
		want, ok := given[p.CallID]
		switch {
		case !ok:
			return fmt.Errorf("the frontend/interactive (#%d) names call %s, which no model reply carried", e.Seq, p.CallID)
		case len(want) == 0 && (len(p.Input) == 0 || emptyObject(p.Input)):
		case !sameJSON(want, p.Input):
			return fmt.Errorf("the frontend/interactive of call %s (#%d) carries the input %s; the model gave the call %s", p.CallID, e.Seq, inputText(p.Input), inputText(want))
		}
	}
	if seen == 0 {
		return notReached("no frontend/interactive reached the harness")
	}
	return nil
}
