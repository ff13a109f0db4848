package steps

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// The denied call never ran, and the model finds a result for it in its
// history: the denial. What the denial says is PA-03's own check
// (denialWithReason).
func (p *planArea) denialResult(nth, tool string) error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	rs, err := p.resultsFor(nth, tool)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if e, ran := p.s.invokedCall(r.ToolUseID); ran {
			return fmt.Errorf("expected the call %s to %q to be denied, but the kernel invoked it (#%d)", r.ToolUseID, tool, e.Seq)
		}
	}
	return nil
}

// PA-03: a denied item never runs, and its tool_result carries a reason the
// harness can tie to the decision: the name of the policy rule that decided
// it, the decided_by its plan_item row records, "default" for the policy
// default, the veto subscriber that denied it, or, for an item the frontend
// denied, the human decider (user, human, frontend, operator). Any other
// text, even a non-empty one, tells the model nothing about why.
func (p *planArea) denialWithReason(nth, tool string) error {
	if err := p.denialResult(nth, tool); err != nil {
		return err
	}
	rs, _ := p.resultsFor(nth, tool)
	for _, r := range rs {
		ties := p.denialTies(tool, r.ToolUseID)
		ok := false
		for _, t := range ties {
			ok = ok || containsWord(r.Content, t)
		}
		if !ok {
			return fmt.Errorf("the denial of the call %s to %q in model request %s says %q, which names none of what decided it (%s): the model cannot tell why it was refused",
				r.ToolUseID, tool, nth, r.Content, strings.Join(quoteAll(ties), ", "))
		}
	}
	return nil
}

// humanDeciders are the words that name a person's decision in a denial.
var humanDeciders = []string{"user", "human", "frontend", "operator"}

// denialTies lists what a denial of one call may name to say who decided
// it.
func (p *planArea) denialTies(tool, callID string) []string {
	s := p.s
	var ties []string
	add := func(t string) {
		if len(strings.TrimSpace(t)) >= 2 && !slices.Contains(ties, t) {
			ties = append(ties, t)
		}
	}
	t, _ := p.tool(tool)
	matched := false
	for i, r := range s.Cfg.Policy.Rules {
		if t != nil && (r.Provider == "" || r.Provider == t.Provider) && (r.Tool == "" || r.Tool == tool) && (r.Kind == "" || r.Kind == t.Kind) {
			matched = true
			if r.Name != "" {
				add(r.Name)
			} else {
				add(fmt.Sprintf("#%d", i+1))
			}
		}
	}
	if !matched {
		add("default")
	}
	for _, e := range s.eventEntries(s.SessionID, wire.EventPlanItem) {
		ev := e.Value.(wire.Event)
		if payloadString(ev, "tool_call_id") != callID {
			continue
		}
		by := payloadString(ev, "decided_by")
		add(by)
		if i := strings.LastIndexAny(by, ":/"); i >= 0 {
			add(by[i+1:])
		}
	}
	for _, a := range s.permissionItems(s.SessionID) {
		if a.item.ToolCallID == callID {
			for _, w := range humanDeciders {
				add(w)
			}
			break
		}
	}
	for _, sub := range s.Cfg.Hooks.Subscribers {
		if sub.Mode == wire.ModeVeto {
			add(sub.ID)
		}
	}
	return ties
}

// containsWord reports whether text holds word (any case) with no letter
// or digit right before or after it, so that a rule named "no" is not found
// in "not".
func containsWord(text, word string) bool {
	text, word = strings.ToLower(text), strings.ToLower(word)
	isWordByte := func(b byte) bool {
		return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z'
	}
	for from := 0; ; {
		i := strings.Index(text[from:], word)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(word)
		if (i == 0 || !isWordByte(text[i-1])) && (j == len(text) || !isWordByte(text[j])) {
			return true
		}
		from = i + 1
	}
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Quote(x)
	}
	return out
}

func (p *planArea) ordinaryResult(nth, tool string) error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	rs, err := p.resultsFor(nth, tool)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if r.IsError {
			return fmt.Errorf("expected an ordinary result for the call %s to %q in model request %s, it is an error: %q", r.ToolUseID, tool, nth, r.Content)
		}
	}
	return nil
}

func (p *planArea) resultText(nth, text, tool string) error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	rs, err := p.resultsFor(nth, tool)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if r.IsError || !strings.Contains(r.Content, text) {
			return fmt.Errorf("expected the result of the call %s to %q in model request %s to be %q, it is %q (is_error %v)", r.ToolUseID, tool, nth, text, r.Content, r.IsError)
		}
	}
	return nil
}

// PA-04: plan mode leaves resource specs out of the request.
func (p *planArea) noResourceSpecs(nth string) error {
	r, err := p.s.modelRequest(nth)
	if err != nil {
		return err
	}
	for _, t := range r.Tools {
		if p.s.kindOf(t.Name) == wire.KindResource {
			return fmt.Errorf("expected model request %s to offer no resource tool in plan mode, it offered %q", nth, t.Name)
		}
	}
	return nil
}

// PA-09: an ask turned into deny is marked as such (an ask_downgrade event
// naming the call, or a denial text that says so); a plain deny is not.
func (p *planArea) downgradeMarked(askTool, denyTool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	marked := func(tool string) (bool, error) {
		ids := s.callIDsOf(tool)
		if len(ids) == 0 {
			return false, fmt.Errorf("the model made no call to %q", tool)
		}
		for _, id := range ids {
			if e, ran := s.invokedCall(id); ran {
				return false, fmt.Errorf("expected the call %s to %q to be denied, the kernel invoked it (#%d)", id, tool, e.Seq)
			}
		}
		for _, e := range s.eventEntries(s.SessionID, wire.EventAskDowngrade) {
			ev := e.Value.(wire.Event)
			if slices.Contains(ids, payloadString(ev, "call_id")) || slices.Contains(ids, payloadString(ev, "tool_call_id")) || payloadString(ev, "tool") == tool {
				return true, nil
			}
		}
		for _, r := range s.modelRequests() {
			for _, m := range r.Messages {
				for _, c := range m.Content {
					if c.Type == wire.BlockToolResult && slices.Contains(ids, c.ToolUseID) && strings.Contains(strings.ToLower(c.Content), "downgrad") {
						return true, nil
					}
				}
			}
		}
		return false, nil
	}
	a, err := marked(askTool)
	if err != nil {
		return err
	}
	d, err := marked(denyTool)
	if err != nil {
		return err
	}
	switch {
	case !a:
		return fmt.Errorf("the denied %q call matched an ask rule, but the kernel reported no downgrade for it (no ask_downgrade event naming the call, no denial text saying the ask was downgraded), so it looks like an ordinary deny", askTool)
	case d:
		return fmt.Errorf("the %q call matched a deny rule, but the kernel reported it as a downgraded ask", denyTool)
	}
	return nil
}

// PA-11: no preview for reads and interactive calls, asked or kept.
func (p *planArea) noPreviewFor(list string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	tools := quotedList(list)
	for _, e := range s.requests() {
		if v, ok := e.Value.(wire.ToolPreviewParams); ok && slices.Contains(tools, v.Tool) {
			return fmt.Errorf("expected no preview for %q (only resource items get one), the kernel sent %q (#%d)", v.Tool, e.Label, e.Seq)
		}
	}
	for _, a := range s.permissionItems(s.SessionID) {
		if slices.Contains(tools, a.item.Tool) && a.item.Preview != nil {
			return fmt.Errorf("the plan item of %q in permission request #%d carries a preview", a.item.Tool, a.entry.Seq)
		}
	}
	for _, e := range s.eventEntries(s.SessionID, wire.EventPlanItem) {
		ev := e.Value.(wire.Event)
		if _, has := ev.Payload["preview"]; has && slices.Contains(tools, payloadString(ev, "tool")) {
			return fmt.Errorf("the plan_item row #%d of %q carries a preview", e.Seq, payloadString(ev, "tool"))
		}
	}
	return nil
}

// firstAsked is the first permission item about a tool.
func (p *planArea) firstAsked(tool string) (askedItem, error) {
	for _, a := range p.s.permissionItems(p.s.SessionID) {
		if a.item.Tool == tool {
			return a, nil
		}
	}
	return askedItem{}, fmt.Errorf("expected a permission request about %q, the frontend received none", tool)
}

// previewRequest is the tool/preview request for a call, if the kernel
// sent one.
func (s *Scenario) previewRequest(callID string) (calllog.Entry, bool) {
	for _, e := range s.requests() {
		if v, ok := e.Value.(wire.ToolPreviewParams); ok && v.CallID == callID {
			return e, true
		}
	}
	return calllog.Entry{}, false
}

// PA-12: a missing, failing or hanging preview leaves the item without one,
// and the human still sees the raw input. A kernel that never asked for the
// preview was never exposed to its failure: not reached.
func (p *planArea) noPreviewButInput(tool string) error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	a, err := p.firstAsked(tool)
	if err != nil {
		return err
	}
	if _, asked := p.s.previewRequest(a.item.ToolCallID); !asked {
		return notReached("the kernel never asked for the preview of %q, so a failing preview could not affect the item", tool)
	}
	if a.item.Preview != nil {
		return fmt.Errorf("expected the permission request (#%d) about %q to carry no preview, it carries %q", a.entry.Seq, tool, *a.item.Preview)
	}
	for _, c := range p.s.modelCalls() {
		if c.ID == a.item.ToolCallID {
			if !jsonEqual(c.Input, a.item.Input) {
				return fmt.Errorf("expected the permission request (#%d) about %q to carry the call's input %s, it carries %s", a.entry.Seq, tool, compact(c.Input), compact(a.item.Input))
			}
			return nil
		}
	}
	return fmt.Errorf("the permission item about %q names tool_call_id %q, which the model never emitted", tool, a.item.ToolCallID)
}

// readingPreviewTimeout is the kernel's deadline for one tool/preview call.
const readingPreviewTimeout = "plan.preview_timeout_ms"

// undeclaredPreviewDeadline holds a kernel that declares no
// plan.preview_timeout_ms. The spec bounds a preview only by "the ordinary
// per-RPC deadline" and gives that no value, so the suite takes the longest
// deadline it can wait out inside a scenario; a kernel with a longer one
// declares it. Never zero: silence earns no free pass.
const undeclaredPreviewDeadline = 10 * time.Second

// previewDeadlineOf is the deadline the kernel's previews are held to, or
// an error naming a declaration that is not a positive number.
func (p *planArea) previewDeadlineOf() (time.Duration, error) {
	v, ok := p.s.env.Info.Readings[readingPreviewTimeout]
	if !ok || v == "" {
		return undeclaredPreviewDeadline, nil
	}
	ms, err := strconv.Atoi(v)
	if err != nil || ms <= 0 {
		return 0, fmt.Errorf("the kernel declares %s = %q, which is not a positive number of milliseconds", readingPreviewTimeout, v)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// previewSlack is the allowance on top of the deadline: the harness times
// the wait from its own arrival times, which trail the kernel's timer by
// transit, so the margin is the larger of 1 s and a quarter of the
// deadline, stretched by the run's timeout multiplier.
func (p *planArea) previewSlack(d time.Duration) time.Duration {
	return p.s.env.Scale(max(time.Second, d/4))
}

// PA-12: a hanging preview delays the permission request by no more than
// the preview's own deadline.
func (p *planArea) previewDeadline(tool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	deadline, err := p.previewDeadlineOf()
	if err != nil {
		return err
	}
	a, err := p.firstAsked(tool)
	if err != nil {
		return err
	}
	e, asked := s.previewRequest(a.item.ToolCallID)
	if !asked {
		return notReached("the kernel never asked for the preview of %q, so it did not wait for it", tool)
	}
	slack := p.previewSlack(deadline)
	if waited := a.entry.Start.Sub(e.Start); waited > deadline+slack {
		return fmt.Errorf("the permission request about %q came %v after its preview request, past the kernel's preview deadline of %v (%s) plus %v of slack",
			tool, waited.Round(time.Millisecond), deadline, p.previewDeadlineSource(), slack)
	}
	if e.Answered() && e.Err == "" && e.EndSeq < a.entry.Seq {
		return fmt.Errorf("the kernel waited for the hanging preview of %q until the harness answered it (#%d) instead of giving up at its deadline of %v", tool, e.EndSeq, deadline)
	}
	return nil
}

func (p *planArea) previewDeadlineSource() string {
	if v := p.s.env.Info.Readings[readingPreviewTimeout]; v != "" {
		return readingPreviewTimeout + " = " + v
	}
	return readingPreviewTimeout + " not declared"
}

func (p *planArea) noErrorEvent() error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	for _, kind := range []string{wire.EventError, wire.EventToolError} {
		if es := p.s.eventEntries(p.s.SessionID, kind); len(es) > 0 {
			return fmt.Errorf("expected no %s event, the kernel reported one (#%d): %v", kind, es[0].Seq, es[0].Value.(wire.Event).Payload)
		}
	}
	return nil
}

// PA-13: what the human sees is what the tool declared when the plan was
// built, and the preview the tool gave then.
func (p *planArea) snapshot(tool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	t, err := p.tool(tool)
	if err != nil {
		return err
	}
	a, err := p.firstAsked(tool)
	if err != nil {
		return err
	}
	it := a.item
	for _, f := range []struct{ name, got, want string }{
		{"kind", it.Kind, t.Kind}, {"risk", it.Risk, t.Risk}, {"description", it.Description, t.Description},
	} {
		if f.got != f.want {
			return fmt.Errorf("the permission request (#%d) about %q says %s %q, the tool declared %q", a.entry.Seq, tool, f.name, f.got, f.want)
		}
	}
	for _, e := range s.requests() {
		v, ok := e.Value.(wire.ToolPreviewParams)
		if !ok || v.CallID != it.ToolCallID || len(e.Result) == 0 {
			continue
		}
		var r wire.ToolPreviewResult
		_ = json.Unmarshal(e.Result, &r)
		if it.Preview == nil || *it.Preview != r.Preview {
			got := "none"
			if it.Preview != nil {
				got = strconv.Quote(*it.Preview)
			}
			return fmt.Errorf("the tool gave the preview %q (#%d), the permission request (#%d) carries %s", r.Preview, e.Seq, a.entry.Seq, got)
		}
	}
	return nil
}

// PA-17, PA-19: a refused decision earns an error that names the item.
func (p *planArea) refusedWithError(tool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ids := map[string]bool{}
	for _, a := range s.permissionItems(s.SessionID) {
		if a.item.Tool == tool {
			ids[a.item.ID] = true
		}
	}
	if len(ids) == 0 {
		return fmt.Errorf("expected a permission request about %q, the frontend received none", tool)
	}
	for _, e := range s.eventEntries(s.SessionID, wire.EventError) {
		if ids[payloadString(e.Value.(wire.Event), "plan_item_id")] {
			return nil
		}
	}
	return fmt.Errorf("expected an error event naming the plan_item_id of the %q item (the kernel must refuse the decision with a distinct error, not accept, shorten or deny it); none came", tool)
}

func (p *planArea) ranWith(tool, args string, want bool) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	in, err := parseArgs(args)
	if err != nil {
		return err
	}
	var inputs []string
	for _, e := range s.requests() {
		if v, ok := e.Value.(wire.ToolInvokeParams); ok && v.Tool == tool {
			if jsonEqual(v.Input, in) {
				if !want {
					return fmt.Errorf("expected %q never to run with input %s, the kernel invoked it so (#%d)", tool, compact(in), e.Seq)
				}
				return nil
			}
			inputs = append(inputs, compact(v.Input))
		}
	}
	if want {
		return fmt.Errorf("expected %q to run with input %s, the kernel invoked it with %v", tool, compact(in), inputs)
	}
	return nil
}

// PA-15: an interactive call reaches the frontend as an interactive request.
func (p *planArea) interactiveFields(tool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ids := s.callIDsOf(tool)
	for _, e := range s.requests() {
		v, ok := e.Value.(wire.InteractiveParams)
		if !ok || v.ToolName != tool {
			continue
		}
		switch {
		case !slices.Contains(ids, v.CallID):
			return fmt.Errorf("the interactive request for %q (#%d) names call_id %q, the model's calls to it are %v", tool, e.Seq, v.CallID, ids)
		case strings.TrimSpace(v.Prompt) == "":
			return fmt.Errorf("the interactive request for %q (#%d) has an empty prompt", tool, e.Seq)
		}
		return nil
	}
	return fmt.Errorf("expected an interactive request for %q, the frontend received none", tool)
}

// readingBreakerStatus is the kernel's reading of the status after a
// circuit-breaker ending (A-06, PROTOCOL.md §15).
const readingBreakerStatus = "circuit_breaker.status"

// PA-05: the breaker ends the session like a bound: with the status
// the kernel declares, which must itself be one a fired bound may end with;
// undeclared, any of them. failed (a bound is no error) and running never
// do. completed is allowed but recorded as suspicious, since it looks like a
// normal finish.
func (p *planArea) breakerStatus() error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	got := s.Result.Status
	allowed := "one of " + strings.Join(doomStatuses, ", ") + " (A-06)"
	if want, ok := s.env.Info.Readings[readingBreakerStatus]; ok && want != "" {
		if !slices.Contains(doomStatuses, want) {
			return fmt.Errorf("the kernel declares %s = %q, which no reading allows: the breaker takes the limit path, which ends with %s", readingBreakerStatus, want, allowed)
		}
		if got != want {
			return fmt.Errorf("expected the session to end with the kernel's circuit-breaker status %q (%s), it ended %q", want, readingBreakerStatus, got)
		}
	} else if !slices.Contains(doomStatuses, got) {
		return fmt.Errorf("expected the session to end, after the circuit breaker tripped, with %s; it ended %q", allowed, got)
	}
	if got == wire.StatusCompleted {
		s.observe("A-06", "the circuit-breaker ending was reported with status %q, which looks like a normal finish (%s = %q)", got, readingBreakerStatus, s.env.Info.Readings[readingBreakerStatus])
	}
	return nil
}

// PA-04: plan mode is defined by leaving resource specs out of the request;
// the spec assumes a model cannot call a tool it was not offered, so what a
// kernel does with a forged call anyway is recorded, never judged.
func (p *planArea) forgedCallReaction(tool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ids := s.callIDsOf(tool)
	if len(ids) == 0 {
		s.observe("PA-04", "the forged call to %q never reached the kernel", tool)
		return nil
	}
	for _, id := range ids {
		what := "was not executed"
		if e, ran := s.invokedCall(id); ran {
			what = fmt.Sprintf("was executed (tool/invoke #%d)", e.Seq)
		}
		asked := ""
		for _, a := range s.permissionItems(s.SessionID) {
			if a.item.ToolCallID == id {
				asked = fmt.Sprintf(", after a permission request (#%d)", a.entry.Seq)
			}
		}
		result := "no tool_result for it reached the model"
		for _, r := range s.modelRequests() {
			for _, m := range r.Messages {
				for _, c := range m.Content {
					if c.Type == wire.BlockToolResult && c.ToolUseID == id {
						result = fmt.Sprintf("the model got the result %q (is_error %v)", safeShort(c.Content), c.IsError)
					}
				}
			}
		}
		s.observe("PA-04", "in plan mode the forged call %s to %q, a resource tool the model was not offered, %s%s; %s", id, tool, what, asked, result)
	}
	return nil
}

// safeShort cuts kernel text for an observation; the report escapes it.
func safeShort(t string) string {
	if r := []rune(t); len(r) > 120 {
		return string(r[:120]) + "…"
	}
	return t
}

// PA-08: an asked item is applied only once the frontend has answered.
func (p *planArea) invokedAfterAnswer(tool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	asked := map[string]calllog.Entry{} // tool_call_id → the permission request
	for _, a := range s.permissionItems(s.SessionID) {
		if a.item.Tool == tool {
			asked[a.item.ToolCallID] = a.entry
		}
	}
	n := 0
	for _, e := range s.requests() {
		v, ok := e.Value.(wire.ToolInvokeParams)
		if !ok || v.Tool != tool {
			continue
		}
		n++
		ask, ok := asked[v.CallID]
		switch {
		case !ok:
			return fmt.Errorf("the call %s to %q was invoked (#%d) without a permission request about it", v.CallID, tool, e.Seq)
		case !ask.Answered() || e.Seq < ask.EndSeq:
			return fmt.Errorf("the call %s to %q was invoked (#%d) while its permission request (#%d) was still unanswered (answered %s)", v.CallID, tool, e.Seq, ask.Seq, holdText(ask))
		}
	}
	if n == 0 {
		return fmt.Errorf("expected %q to be invoked once the frontend allowed it, the kernel never invoked it", tool)
	}
	return nil
}
