package steps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/cucumber/godog"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/spec/wire"
)

// Folding a model stream (PROTOCOL.md §7.3). The fake model's own replies
// always come as one text delta, tool calls with input and one usage
// event; other providers stream text in pieces, send a tool_call without
// input and several usage events. A scripted raw stream makes those, and
// the checks read what the kernel made of them: the assistant message in
// the next request's history and the tool/invoke (TA-01: the next request
// ends with the assistant message, one invoke per call), and the usage the
// post-model-response observer sees (TA-06: what the reply's cost is
// computed from).

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the model answers request (\d+) with these stream events:$`), s.answerStream)
		sc.Step(stepRE(`^model request (\d+) holds the assistant message of request (\d+) with the text "([^"]*)" in one text block$`), s.proves(s.foldedText, "TA-01"))
		sc.Step(stepRE(`^the call of request (\d+) has the input \{\} in its tool/invoke and in the tool_use block of model request (\d+)$`), s.proves(s.emptyInput, "TA-01"))
		sc.Step(stepRE(`^the call "([^"]+)" has the input (\{.*\}) in its tool/invoke and in the tool_use block of model request (\d+)$`), s.proves(s.givenInput, "TA-01"))
		// The result side of the same fold: a tool's output, down to one
		// byte, is the call's result in the next request (a kernel that
		// took a one-byte output for none passed every longer one).
		sc.Step(stepRE(`^model request (\d+) holds the output "([^"]*)" of the tool "([^"]+)" as the result of every call to it$`), s.proves(func(nth, text, tool string) error {
			return (&planArea{s: s}).resultText(nth, text, tool)
		}, "TA-01"))
		// A string output is the result's text itself (PROTOCOL.md §7.4):
		// quotes, backslashes and line breaks as the tool wrote them, not
		// the JSON that spells the string.
		sc.Step(stepRE(`^model request (\d+) holds this text as the result of every call to "([^"]+)":$`), s.proves(func(nth, tool string, doc *godog.DocString) error {
			return (&planArea{s: s}).resultText(nth, doc.Content, tool)
		}, "TA-01"))
		sc.Step(stepRE(`^the post-model-response payload after model request (\d+) carries the sum of its usage events$`), s.proves(s.postModelUsageSum, "TA-06"))
		// The session's totals are the same sums over the whole session
		// (PROTOCOL.md RunSessionResult): a counter of 0 counts 0, as
		// only a usage event that reports one shows.
		sc.Step(stepRE(`^the session result's totals are the sums of its usage events and of its cost reports$`), s.proves(func() error {
			if err := s.mustHaveRun(); err != nil {
				return err
			}
			return s.saTotals("the session's result", s.Result, []string{s.SessionID})
		}, "TA-06"))
	})
}

func (s *Scenario) answerStream(n int, doc *godog.DocString) error {
	var evs []wire.StreamEvent
	dec := json.NewDecoder(strings.NewReader(doc.Content))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&evs); err != nil {
		return fmt.Errorf("the stream is not a JSON array of stream events: %v", err)
	}
	if len(evs) == 0 {
		return fmt.Errorf("the stream of request %d has no events", n)
	}
	s.World.Model.On(n, fakes.Reply{Events: evs})
	return nil
}

// TA-01 (PROTOCOL.md §7.3): consecutive text deltas are one text block of
// the assistant message the next request carries.
func (s *Scenario) foldedText(n, from int, want string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	id, err := s.callOf(from)
	if err != nil {
		return err
	}
	rs := s.modelRequests()
	if n < 1 || n > len(rs) {
		return notReached("there is no model request %d: the kernel sent %d", n, len(rs))
	}
	for _, m := range rs[n-1].Messages {
		if m.Role != "assistant" || !hasToolUse(m, id) {
			continue
		}
		var texts []string
		for _, c := range m.Content {
			if c.Type == wire.BlockText {
				texts = append(texts, c.Text)
			}
		}
		if len(texts) != 1 || texts[0] != want {
			return fmt.Errorf("expected the assistant message of request %d in model request %d to hold its streamed text as one text block %q, it holds %d text block(s) %q",
				from, n, want, len(texts), texts)
		}
		return nil
	}
	return fmt.Errorf("model request %d holds no assistant message with the tool_use %s of request %d", n, id, from)
}

func hasToolUse(m wire.Message, id string) bool {
	for _, c := range m.Content {
		if c.Type == wire.BlockToolUse && c.ID == id {
			return true
		}
	}
	return false
}

// TA-01 (PROTOCOL.md §7.3, §7.4): a tool_call without input is a call
// with no arguments: input {} in its tool/invoke and in the tool_use block
// the next request's history carries (a provider's API wants one there).
func (s *Scenario) emptyInput(from, n int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	id, err := s.callOf(from)
	if err != nil {
		return err
	}
	return s.callInput(id, "{}", n, fmt.Sprintf("of request %d, whose tool_call carried no input,", from))
}

// TA-01: the other side of the same fold: a call with input is invoked,
// and kept in the history, with exactly that input (a kernel that made
// every call's input {} passed the empty side alone).
func (s *Scenario) givenInput(id, want string, n int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	return s.callInput(id, want, n, "")
}

// callInput checks that call id carries the JSON input want in every
// tool/invoke of it and in its tool_use block in model request n; what
// says which call it is in the messages.
func (s *Scenario) callInput(id, want string, n int, what string) error {
	var w bytes.Buffer
	if err := json.Compact(&w, []byte(want)); err != nil {
		return fmt.Errorf("the scenario's input %s is not JSON: %v", want, err)
	}
	same := func(in json.RawMessage) bool {
		var buf bytes.Buffer
		return json.Compact(&buf, in) == nil && sameJSON(buf.Bytes(), w.Bytes())
	}
	rs := s.modelRequests()
	if n < 1 || n > len(rs) {
		return notReached("there is no model request %d: the kernel sent %d", n, len(rs))
	}
	inHistory := false
	for _, m := range rs[n-1].Messages {
		for _, c := range m.Content {
			if c.Type != wire.BlockToolUse || c.ID != id {
				continue
			}
			inHistory = true
			if !same(c.Input) {
				return fmt.Errorf("expected the tool_use block of call %s %s in model request %d to carry input %s, it carries %s", id, what, n, w.String(), inputText(c.Input))
			}
		}
	}
	if !inHistory {
		return fmt.Errorf("model request %d holds no tool_use block of call %s", n, id)
	}
	seen := 0
	for _, e := range s.requests() {
		p, ok := e.Value.(wire.ToolInvokeParams)
		if !ok || p.CallID != id {
			continue
		}
		seen++
		if !same(p.Input) {
			return fmt.Errorf("expected the tool/invoke of call %s %s to carry input %s, it carries %s", id, what, w.String(), inputText(p.Input))
		}
	}
	if seen == 0 {
		return fmt.Errorf("the call %s was never invoked", id)
	}
	return nil
}

// sameJSON compares two compact JSON texts as values (key order aside).
func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

func emptyObject(in json.RawMessage) bool {
	var buf bytes.Buffer
	return json.Compact(&buf, in) == nil && buf.String() == "{}"
}

func inputText(in json.RawMessage) string {
	if len(in) == 0 {
		return "no input"
	}
	return string(in)
}

// TA-06: the post-model-response payload's usage is the reply's usage,
// every usage event of the stream added up counter by counter (an absent
// counter counts as zero, TA-24).
func (s *Scenario) postModelUsageSum(n int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	e, err := s.modelEntry(n)
	if err != nil {
		return err
	}
	var want [5]int64
	events := replyUsages(e)
	for _, u := range events {
		add := usageCounters(u)
		for i := range want {
			want[i] += add[i]
		}
	}
	if len(events) == 0 {
		return notReached("model request %d was answered without a usage event", n)
	}
	for _, d := range s.dispatchesAt(wire.PointPostModelResponse) {
		if d.Seq < e.Seq {
			continue
		}
		p := d.Value.(wire.HookDispatchParams).Payload
		if p.Usage == nil {
			return fmt.Errorf("the post-model-response payload after model request %d (#%d) carries no usage; the reply's %d usage events add up to %s", n, d.Seq, len(events), countersText(want))
		}
		if got := usageCounters(*p.Usage); got != want {
			return fmt.Errorf("expected the post-model-response payload after model request %d (#%d) to carry the sum of the reply's %d usage events, %s; it carries %s",
				n, d.Seq, len(events), countersText(want), countersText(got))
		}
		return nil
	}
	return notReached("no post-model-response dispatch followed model request %d (the scenario needs a subscriber there)", n)
}

func usageCounters(u wire.Usage) [5]int64 {
	opt := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	return [5]int64{u.InputTokens, u.OutputTokens, opt(u.CacheReadTokens), opt(u.CacheWriteTokens), opt(u.ReasoningTokens)}
}

func countersText(c [5]int64) string {
	return fmt.Sprintf("input %d, output %d, cache_read %d, cache_write %d, reasoning %d", c[0], c[1], c[2], c[3], c[4])
}
