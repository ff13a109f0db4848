package steps

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
	"github.com/google/go-cmp/cmp"
)

// Views of the recorded log for the scenario's root session.

func (s *Scenario) requests() []calllog.Entry {
	return s.World.Log.Select(func(e *calllog.Entry) bool {
		return e.Kind == calllog.Request && e.SessionID == s.SessionID
	})
}

// requestsOf is the root session's requests of one method, in arrival order.
func (s *Scenario) requestsOf(method string) []calllog.Entry {
	var out []calllog.Entry
	for _, e := range s.requests() {
		if e.Method == method {
			out = append(out, e)
		}
	}
	return out
}

func (s *Scenario) modelEntries() []calllog.Entry { return s.requestsOf(wire.MethodModelStream) }

func (s *Scenario) hookRequests() []calllog.Entry { return s.requestsOf(wire.MethodHookDispatch) }

func (s *Scenario) modelRequests() []wire.ModelStreamParams {
	var out []wire.ModelStreamParams
	for _, e := range s.requests() {
		if p, ok := e.Value.(wire.ModelStreamParams); ok {
			out = append(out, p)
		}
	}
	return out
}

func (s *Scenario) modelRequest(nth string) (wire.ModelStreamParams, error) {
	n, err := ordinal(nth)
	if err != nil {
		return wire.ModelStreamParams{}, err
	}
	if err := s.mustHaveRun(); err != nil {
		return wire.ModelStreamParams{}, err
	}
	rs := s.modelRequests()
	if n < 1 || n > len(rs) {
		// What the check looks at never happened; the count is another
		// check's business.
		return wire.ModelStreamParams{}, notReached("there is no model request %d: the kernel sent %d", n, len(rs))
	}
	return rs[n-1], nil
}

// turns splits the root session's requests into turns: a turn starts at a
// context/assemble request (step 1) and runs until the next one, or, for a
// kernel with no context step, where the turn_id of the call context
// changes (PROTOCOL.md §12). Requests before the first turn (session-start
// hooks) are turn 0. A reduce: true pass stays inside its turn (ER-06).
func (s *Scenario) turns() [][]calllog.Entry { return turnsIn(s.requests()) }

// turnsIn splits one session's requests into its turns, as turns does.
func turnsIn(es []calllog.Entry) [][]calllog.Entry {
	out := [][]calllog.Entry{nil}
	cur := "" // the turn_id of the current turn, once one was seen
	for _, e := range es {
		p, isCtx := e.Value.(wire.ContextAssembleParams)
		switch {
		case isCtx && !p.Reduce:
			out = append(out, nil)
			cur = e.TurnID
		case e.TurnID == "" || e.TurnID == cur:
		case cur == "" && len(out) > 1:
			cur = e.TurnID // a context step without a turn_id opened this turn
		default:
			out = append(out, nil)
			cur = e.TurnID
		}
		out[len(out)-1] = append(out[len(out)-1], e)
	}
	return out
}

func labels(es []calllog.Entry) []string {
	out := make([]string, 0, len(es))
	for _, e := range es {
		out = append(out, e.Label)
	}
	return out
}

// Failure text: what was expected, what the kernel did, and (added by the
// runner) the recorded log.

func (s *Scenario) sessionEndsWith(status string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if s.Result.Status != status {
		msg := fmt.Sprintf("expected the session to end with status %q, the kernel reported %q", status, s.Result.Status)
		if s.Result.Error != "" {
			msg += " (error: " + s.Result.Error + ")"
		}
		return fmt.Errorf("%s", msg)
	}
	return nil
}

func (s *Scenario) modelAsked(n int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if got := len(s.modelRequests()); got != n {
		return fmt.Errorf("expected %s, the kernel sent %d", plain.Count(n, "model request"), got)
	}
	return nil
}

// TA-20: the final-answer request withholds every tool spec.
func (s *Scenario) requestOfferedNoTools(nth string) error {
	r, err := s.modelRequest(nth)
	if err != nil {
		return err
	}
	if len(r.Tools) != 0 {
		var names []string
		for _, t := range r.Tools {
			names = append(names, t.Name)
		}
		return fmt.Errorf("expected model request %s to offer no tools, it offered %s", nth, strings.Join(names, ", "))
	}
	return nil
}

// harnessTexts is everything the harness itself put into the conversation;
// text beyond these is kernel-authored.
func (s *Scenario) harnessTexts() map[string]bool {
	known := map[string]bool{s.Prompt: true}
	for _, e := range s.World.Log.Entries() {
		if e.Kind != calllog.Request || len(e.Result) == 0 {
			continue
		}
		switch e.Method {
		case wire.MethodContextAssemble:
			var r wire.ContextAssembleResult
			_ = json.Unmarshal(e.Result, &r)
			for _, c := range r.Contributions {
				known[c.Text] = true
			}
		case wire.MethodModelStream:
			var r wire.ModelStreamResult
			_ = json.Unmarshal(e.Result, &r)
			var b strings.Builder
			for _, ev := range r.Events {
				b.WriteString(ev.Text)
			}
			known[b.String()] = true
		case wire.MethodHookDispatch:
			var r wire.HookDispatchResult
			_ = json.Unmarshal(e.Result, &r)
			if r.Payload != nil {
				for _, m := range r.Payload.Messages {
					for _, c := range m.Content {
						known[c.Text] = true
					}
				}
			}
		}
	}
	return known
}

// kernelTexts lists text in a request that the harness never sent.
func (s *Scenario) kernelTexts(r wire.ModelStreamParams) []string {
	known := s.harnessTexts()
	var out []string
	for _, m := range r.Messages {
		if m.Role == "assistant" {
			continue
		}
		for _, c := range m.Content {
			if c.Type == wire.BlockText && strings.TrimSpace(c.Text) != "" && !known[c.Text] {
				out = append(out, c.Text)
			}
		}
	}
	for _, c := range r.AssembledContext {
		if !known[c.Text] {
			out = append(out, c.Text)
		}
	}
	return out
}

// TA-20: the final-answer request carries a kernel-authored instruction
// that the request before it did not.
func (s *Scenario) requestCarriedInstruction(nth string) error {
	r, err := s.modelRequest(nth)
	if err != nil {
		return err
	}
	n, _ := ordinal(nth)
	before := map[string]bool{}
	if n > 1 {
		prev, _ := s.modelRequest(fmt.Sprint(n - 1))
		for _, t := range s.kernelTexts(prev) {
			before[t] = true
		}
	}
	var short []string
	for _, t := range s.kernelTexts(r) {
		if before[t] {
			continue
		}
		if isInstruction(t) {
			return nil
		}
		short = append(short, fmt.Sprintf("%q", truncate(t, 60)))
	}
	if len(short) > 0 {
		return fmt.Errorf("expected model request %s to carry a new instruction written by the kernel, telling the model a limit was reached and asking for a final answer; its only new text, %s, has fewer than %d words", nth, strings.Join(short, ", "), instructionWords)
	}
	return fmt.Errorf("expected model request %s to carry a new instruction written by the kernel (telling the model a limit was reached); every text in it came from the harness or an earlier request", nth)
}

// TA-20: earlier tool results are kept in the final-answer request.
func (s *Scenario) requestHoldsEarlierResults(nth string) error {
	r, err := s.modelRequest(nth)
	if err != nil {
		return err
	}
	n, _ := ordinal(nth)
	results := map[string]bool{}
	for _, m := range r.Messages {
		for _, c := range m.Content {
			if c.Type == wire.BlockToolResult {
				results[c.ToolUseID] = true
			}
		}
	}
	var missing []string
	for _, id := range s.callIDsBefore(n) {
		if !results[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("model request %s lacks the tool results of earlier calls %s", nth, strings.Join(missing, ", "))
	}
	return nil
}

// callIDsBefore lists the tool call ids the fake model emitted in answers
// to requests 1..n-1.
func (s *Scenario) callIDsBefore(n int) []string {
	var ids []string
	i := 0
	for _, e := range s.requests() {
		if e.Method != wire.MethodModelStream {
			continue
		}
		i++
		if i >= n {
			break
		}
		var r wire.ModelStreamResult
		_ = json.Unmarshal(e.Result, &r)
		for _, ev := range r.Events {
			if ev.Type == wire.EventToolCall {
				ids = append(ids, ev.ID)
			}
		}
	}
	return ids
}

// TA-21 / A-08: nothing runs after the final-answer request, even when the
// model's last reply asks for tools.
func (s *Scenario) noInvokeAfter(nth string) error {
	n, err := ordinal(nth)
	if err != nil {
		return err
	}
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if got := len(s.modelEntries()); n > got {
		return notReached("there is no model request %d: the kernel sent %d", n, got)
	}
	seen := 0
	for _, e := range s.requests() {
		if e.Method == wire.MethodModelStream {
			seen++
			continue
		}
		if seen >= n && (e.Method == wire.MethodToolInvoke || e.Method == wire.MethodFrontendInteractive || e.Method == wire.MethodFrontendPermission) {
			return fmt.Errorf("expected no tool to run after model request %d, the kernel sent %q (#%d)", n, e.Label, e.Seq)
		}
	}
	return nil
}

// TA-01: the requests of one turn, in arrival order.
func (s *Scenario) turnOrder(nth string, want []string) error {
	n, err := ordinal(nth)
	if err != nil {
		return err
	}
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ts := s.turns()
	if n >= len(ts) {
		if len(s.turnEntries()) < n {
			return notReached("there is no turn %d: the kernel made %s to the model", n, plain.Count(len(s.turnEntries()), "turn request"))
		}
		return fmt.Errorf("expected at least %d turns, each starting with context/assemble (step 1); the kernel made %d model requests but only %d context/assemble requests", n, len(s.turnEntries()), len(ts)-1)
	}
	got := labels(ts[n])
	if diff := plain.Diff(want, got); diff != "" {
		return fmt.Errorf("turn %d's requests arrived in another order (-expected +kernel):\n%s", n, diff)
	}
	return nil
}

func (s *Scenario) turnStartsWith(nth, label string) error {
	n, err := ordinal(nth)
	if err != nil {
		return err
	}
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ts := s.turns()
	if n >= len(ts) || len(ts[n]) == 0 {
		if len(s.turnEntries()) < n {
			return notReached("there is no turn %d: the kernel made %s to the model", n, plain.Count(len(s.turnEntries()), "turn request"))
		}
		return fmt.Errorf("expected turn %d to start with %q, but the kernel made %d model requests and only %d context/assemble requests", n, label, len(s.turnEntries()), len(ts)-1)
	}
	if ts[n][0].Label != label {
		return fmt.Errorf("expected turn %d to start with %q, it started with %q", n, label, ts[n][0].Label)
	}
	return nil
}

// TA-01 (step 15): the next request carries the assistant message and then
// exactly one result per tool_use.
func (s *Scenario) requestEndsWithResults(nth, prevNth string) error {
	r, err := s.modelRequest(nth)
	if err != nil {
		return err
	}
	p, _ := ordinal(prevNth)
	n, _ := ordinal(nth)
	ids := s.callIDsBefore(p + 1)
	ids = ids[len(s.callIDsBefore(p)):]
	// Find the assistant message holding those tool_use blocks.
	at := -1
	for i, m := range r.Messages {
		if m.Role != "assistant" {
			continue
		}
		var uses []string
		for _, c := range m.Content {
			if c.Type == wire.BlockToolUse {
				uses = append(uses, c.ID)
			}
		}
		if cmp.Equal(uses, ids) {
			at = i
		}
	}
	if at < 0 {
		return fmt.Errorf("model request %d does not contain the assistant message of request %d with tool_use blocks %s", n, p, plain.JSON(ids))
	}
	var results []string
	for _, m := range r.Messages[at+1:] {
		for _, c := range m.Content {
			switch c.Type {
			case wire.BlockToolResult:
				results = append(results, c.ToolUseID)
			case wire.BlockText:
				if m.Role == "assistant" {
					return fmt.Errorf("model request %d has assistant text after the tool calls of request %d", n, p)
				}
			}
		}
	}
	if diff := plain.Diff(ids, results); diff != "" {
		return fmt.Errorf("after the assistant message of request %d, model request %d should hold one result per tool_use in order (-expected +kernel):\n%s", p, n, diff)
	}
	return nil
}

func (s *Scenario) dispatchesAt(point string) []calllog.Entry {
	return s.World.Log.Select(func(e *calllog.Entry) bool {
		p, ok := e.Value.(wire.HookDispatchParams)
		return ok && e.SessionID == s.SessionID && p.Point == point
	})
}

// TA-10: a text-only reply skips steps 7–17.
func (s *Scenario) pointsNeverDispatched(list string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for _, p := range quotedList(list) {
		if why := s.hookPointUnseen(p); why != "" {
			return glueNotReached(why)
		}
		if d := s.dispatchesAt(p); len(d) > 0 {
			return fmt.Errorf("expected no %q dispatch, the kernel sent %d (first #%d)", p, len(d), d[0].Seq)
		}
	}
	return nil
}

// TA-18: session points fire exactly once, in their place.
func (s *Scenario) dispatchedOnce(point, where string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if why := s.hookPointUnseen(point); why != "" {
		return glueNotReached(why)
	}
	d := s.dispatchesAt(point)
	if len(d) != 1 {
		return fmt.Errorf("expected %q to be dispatched exactly once, the kernel dispatched it %d times", point, len(d))
	}
	reqs := s.requests()
	switch {
	case strings.Contains(where, "before the first context assemble"):
		for _, e := range reqs {
			if e.Method == wire.MethodContextAssemble {
				if e.Seq < d[0].Seq {
					return fmt.Errorf("expected %q before the first context/assemble (#%d), it came at #%d", point, e.Seq, d[0].Seq)
				}
				break
			}
		}
	case strings.Contains(where, "after the last model request"):
		for i := len(reqs) - 1; i >= 0; i-- {
			if reqs[i].Method == wire.MethodModelStream {
				if reqs[i].Seq > d[0].Seq {
					return fmt.Errorf("expected %q after the last model request (#%d), it came at #%d", point, reqs[i].Seq, d[0].Seq)
				}
				break
			}
		}
	}
	return nil
}

// TA-18 / TA-21: the status is the same wherever the kernel reports it.
func (s *Scenario) sessionEndPayloadStatus() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if why := s.hookPointUnseen(wire.PointSessionEnd); why != "" {
		return glueNotReached(why)
	}
	d := s.dispatchesAt(wire.PointSessionEnd)
	if len(d) == 0 {
		return fmt.Errorf("no session-end dispatch was recorded")
	}
	p := d[len(d)-1].Value.(wire.HookDispatchParams)
	if p.Payload.Status != s.Result.Status {
		return fmt.Errorf("the session-end payload says status %q, the session/run result says %q", p.Payload.Status, s.Result.Status)
	}
	return nil
}

func (s *Scenario) lastMetaStatus() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	var last *wire.SessionMeta
	for _, m := range s.World.Metas() {
		if m.SessionID == s.SessionID {
			m := m
			last = &m
		}
	}
	if last == nil {
		return fmt.Errorf("the kernel sent no session/meta row for session %s", s.SessionID)
	}
	if last.Status != s.Result.Status {
		return fmt.Errorf("the last session_meta row says status %q, the session/run result says %q", last.Status, s.Result.Status)
	}
	if last.EndedAt == "" {
		return fmt.Errorf("the last session_meta row has no ended_at")
	}
	if s.cancelSent.Load() && s.Result.Status != wire.StatusCancelled {
		// Nothing but the cancel could end the session then (a hung model
		// request, or a cancel read with a tool's answer before any later
		// request was answered), so any other status is the cancel's
		// handling gone wrong: a framework's abort taken for a failure, or
		// a loop that abandons what is in flight but goes on when nothing is.
		return fmt.Errorf("the harness cancelled the session %s, and the session ended %q (its session/run result and last session_meta row), not \"cancelled\" (PROTOCOL.md §5 item 4)", s.cancelledWhen, s.Result.Status)
	}
	return nil
}

// TA-18: the session-end payload and the end row carry the final message
// the session ended with (PROTOCOL.md §8.3, HookPayload: sent when the
// kernel has it, and a session that answered with text has it).
func (s *Scenario) endCarriesFinalMessage(text string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if why := s.hookPointUnseen(wire.PointSessionEnd); why != "" {
		return glueNotReached(why)
	}
	if s.env != nil && s.env.Bridged {
		// The bridge builds the session-end payload and the rows itself,
		// from hook events that carry no final message: nothing of the
		// agent's would be judged.
		return glueNotReached("the bridge builds the session-end payload and the session rows itself; the agent's hook events carry no final message (bridge glue)")
	}
	var payload, row *wire.Message
	seen := false
	for _, e := range s.dispatchesAt(wire.PointSessionEnd) {
		if p := e.Value.(wire.HookDispatchParams).Payload; p.SessionID == s.SessionID {
			payload, seen = p.FinalMessage, true
		}
	}
	if !seen {
		return fmt.Errorf("no session-end dispatch for session %s was recorded", s.SessionID)
	}
	ended := false
	for _, m := range s.World.Metas() {
		if m.SessionID == s.SessionID && m.EndedAt != "" {
			row, ended = m.FinalMessage, true
		}
	}
	if !ended {
		return fmt.Errorf("the kernel sent no end row (session/meta with ended_at) for session %s", s.SessionID)
	}
	var bad []string
	for _, p := range []struct {
		where string
		m     *wire.Message
	}{{"the session-end payload", payload}, {"the end session_meta row", row}} {
		switch got := messageText(p.m); {
		case p.m == nil:
			bad = append(bad, p.where+" has no final_message")
		case !strings.Contains(got, text):
			bad = append(bad, fmt.Sprintf("%s's final_message says %q", p.where, got))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("the session ended with the model's answer %q, which the kernel has, but %s", text, strings.Join(bad, "; "))
	}
	return nil
}

// messageText is the text of a message's text blocks.
func messageText(m *wire.Message) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range m.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func (s *Scenario) finalMessageSays(text string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if s.Result.FinalMessage == nil {
		return fmt.Errorf("expected a final message saying %q, the result has none", text)
	}
	if got := messageText(s.Result.FinalMessage); !strings.Contains(got, text) {
		return fmt.Errorf("expected the final message to say %q, it says %q", text, got)
	}
	return nil
}
