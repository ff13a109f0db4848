package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/spec/wire"
)

// The plan/apply gate and the precheck of reads and interactive calls
// (PA-01 … PA-19). Decisions are observed where the protocol shows them:
// plan_item events (the plan_items rows), frontend/permission requests,
// tool/preview and tool/invoke requests, error and ask_downgrade events,
// and the tool_result blocks of the next model request.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc *godog.ScenarioContext) {
		p := &planArea{s: s}
		// Setup.
		sc.Step(stepRE(`^a policy rule "([^"]+)" that (allows|asks for|denies) the tools of provider "([^"]+)"$`), p.providerRule)
		sc.Step(stepRE(`^a policy rule "([^"]+)" that denies every call$`), p.denyAll)
		sc.Step(stepRE(`^the frontend (?:first |then )?answers permission for "([^"]+)" with (ALLOW|DENY)(?: and scope (ONCE|SESSION|ALWAYS))?(?: after (\d+) ms)?$`), p.answer)
		sc.Step(stepRE(`^the frontend (?:first |then )?answers permission for "([^"]+)" with ALLOW and corrected input (.+)$`), p.answerCorrected)
		sc.Step(stepRE(`^the interactive tool "([^"]+)" is answered with "([^"]*)"$`), p.interactiveAnswer)
		sc.Step(stepRE(`^the tool "([^"]+)" requires a string "([^"]+)"$`), p.requiresString)
		sc.Step(stepRE(`^the tool "([^"]+)" offers a preview(?: that (fails|hangs|is not implemented))?$`), p.preview)
		sc.Step(stepRE(`^the tool "([^"]+)" has risk "([^"]+)" and description "([^"]*)"$`), p.riskAndDescription)
		sc.Step(stepRE(`^plan mode is on$`), p.planMode)
		sc.Step(stepRE(`^the circuit breaker trips after (\d+) denials in a row$`), p.breakerConsecutive)
		sc.Step(stepRE(`^the circuit breaker trips after (\d+) denials among the last (\d+) decisions$`), p.breakerWindow)
		sc.Step(stepRE(`^the kernel has a writable policy store$`), p.persistAlways)
		sc.Step(stepRE(`^the session uses a profile of its own$`), p.ownProfile)
		sc.Step(stepRE(`^a second session runs under the same profile$`), p.secondSession)

		// Checks.
		sc.Step(stepRE(`^the frontend was asked about "([^"]+)" (\d+) times?$`), func(tool string, n int) error {
			return p.askedTimes(s.SessionID, tool, n)
		})
		sc.Step(stepRE(`^the second session asked the frontend about "([^"]+)" (\d+) times?$`), func(tool string, n int) error {
			return p.askedTimes(p.second, tool, n)
		})
		sc.Step(stepRE(`^the tool "([^"]+)" was invoked (\d+) times? in the second session$`), func(tool string, n int) error {
			return s.invokedTimes(p.second, tool, n)
		})
		sc.Step(stepRE(`^the frontend was never asked about (.+)$`), p.neverAsked)
		sc.Step(stepRE(`^the frontend received no permission request$`), func() error { return p.noRequest(wire.MethodFrontendPermission) })
		sc.Step(stepRE(`^the frontend received no interactive request$`), func() error { return p.noRequest(wire.MethodFrontendInteractive) })
		sc.Step(stepRE(`^the frontend was asked about "([^"]+)" and "([^"]+)" in one permission request$`), p.batched)
		sc.Step(stepRE(`^turn (\d+) wrote one plan_item row per resource call before asking about or applying any of them:$`), p.planRows)
		sc.Step(stepRE(`^the plan_item rows of turn (\d+) name a different decider each$`), p.distinctDeciders)
		sc.Step(stepRE(`^every call to "([^"]+)" has a plan_item row$`), p.everyCallHasRow)
		sc.Step(stepRE(`^model request (\d+) holds a denial with a reason for the call to "([^"]+)"$`), p.denialResult)
		sc.Step(stepRE(`^model request (\d+) holds an ordinary result for the call to "([^"]+)"$`), p.ordinaryResult)
		sc.Step(stepRE(`^model request (\d+) holds "([^"]*)" as the result of the call to "([^"]+)"$`), p.resultText)
		sc.Step(stepRE(`^model request (\d+) offered no resource tool$`), p.noResourceSpecs)
		sc.Step(stepRE(`^the kernel reported the "([^"]+)" call as a downgraded ask and the "([^"]+)" call as a plain deny$`), p.downgradeMarked)
		sc.Step(stepRE(`^no preview was requested or stored for (.+)$`), p.noPreviewFor)
		sc.Step(stepRE(`^the permission request for "([^"]+)" carried no preview but the call's input$`), p.noPreviewButInput)
		sc.Step(stepRE(`^the permission request for "([^"]+)" did not wait past the kernel's preview deadline$`), p.previewDeadline)
		sc.Step(stepRE(`^the kernel reported no error event$`), p.noErrorEvent)
		sc.Step(stepRE(`^the permission request for "([^"]+)" carried the kind, risk, description and preview the tool gave at plan time$`), p.snapshot)
		sc.Step(stepRE(`^the kernel refused the (?:ALWAYS answer|corrected input) for "([^"]+)" with an error naming its plan item$`), p.refusedWithError)
		sc.Step(stepRE(`^the tool "([^"]+)" ran with input (.+)$`), func(tool, args string) error { return p.ranWith(tool, args, true) })
		sc.Step(stepRE(`^the tool "([^"]+)" never ran with input (.+)$`), func(tool, args string) error { return p.ranWith(tool, args, false) })
		sc.Step(stepRE(`^the interactive request for "([^"]+)" carried its call id, the tool name and a prompt$`), p.interactiveFields)
		sc.Step(stepRE(`^the tool "([^"]+)" was invoked only after the frontend had answered about it$`), p.invokedAfterAnswer)
		sc.Step(stepRE(`^the session ends with the kernel's circuit-breaker status$`), p.breakerStatus)
	})
}

type planArea struct {
	s      *Scenario
	second string // the second session's id, once it ran
}

// Setup.

func policyDecision(verb string) string {
	return map[string]string{"allows": wire.PolicyAllow, "asks for": wire.PolicyAsk, "denies": wire.PolicyDeny}[verb]
}

func (p *planArea) providerRule(name, verb, provider string) error {
	p.s.Cfg.Policy.Rules = append(p.s.Cfg.Policy.Rules, wire.PolicyRule{Name: name, Provider: provider, Decision: policyDecision(verb)})
	return nil
}

func (p *planArea) denyAll(name string) error {
	p.s.Cfg.Policy.Rules = append(p.s.Cfg.Policy.Rules, wire.PolicyRule{Name: name, Decision: wire.PolicyDeny})
	return nil
}

func (p *planArea) answer(tool, decision, scope, after string) error {
	perm := fakes.Permission{Decision: decision, Scope: scope}
	if after != "" {
		ms, err := strconv.Atoi(after)
		if err != nil {
			return err
		}
		perm.Hold = time.Duration(ms) * time.Millisecond
	}
	p.s.World.Frontend.AddPermission(tool, perm)
	return nil
}

func (p *planArea) answerCorrected(tool, args string) error {
	in, err := parseArgs(args)
	if err != nil {
		return err
	}
	p.s.World.Frontend.AddPermission(tool, fakes.Permission{Decision: wire.DecisionAllow, Scope: wire.ScopeOnce, CorrectedInput: in})
	return nil
}

func (p *planArea) interactiveAnswer(tool, answer string) error {
	p.s.World.Frontend.SetAnswer(tool, answer)
	return nil
}

func (p *planArea) tool(name string) (*wire.ToolSchema, error) {
	for i := range p.s.Cfg.Tools {
		if p.s.Cfg.Tools[i].Name == name {
			return &p.s.Cfg.Tools[i], nil
		}
	}
	return nil, fmt.Errorf("the scenario declares no tool %q (declare it first)", name)
}

func (p *planArea) requiresString(name, field string) error {
	t, err := p.tool(name)
	if err != nil {
		return err
	}
	t.InputSchema = map[string]any{
		"type":       "object",
		"properties": map[string]any{field: map[string]any{"type": "string"}},
		"required":   []any{field},
	}
	return nil
}

func (p *planArea) preview(name, how string) error {
	t, err := p.tool(name)
	if err != nil {
		return err
	}
	t.HasPreview = true
	mode := map[string]fakes.PreviewMode{"": fakes.PreviewOK, "fails": fakes.PreviewFail, "hangs": fakes.PreviewHang, "is not implemented": fakes.PreviewNone}[how]
	p.s.World.Tools.Update(name, func(b *fakes.ToolBehavior) { b.Preview = mode })
	return nil
}

func (p *planArea) riskAndDescription(name, risk, desc string) error {
	t, err := p.tool(name)
	if err != nil {
		return err
	}
	t.Risk, t.Description = risk, desc
	return nil
}

func (p *planArea) planMode() error {
	p.s.Cfg.PlanMode = true
	return nil
}

func (p *planArea) breakerConsecutive(n int) error {
	p.s.Cfg.Policy.CircuitBreaker = &wire.CircuitBreaker{Consecutive: n}
	return nil
}

func (p *planArea) breakerWindow(m, window int) error {
	// A consecutive threshold the scenario never reaches, so that only the
	// window can trip.
	p.s.Cfg.Policy.CircuitBreaker = &wire.CircuitBreaker{Consecutive: 1000, Window: window, WindowMax: m}
	return nil
}

func (p *planArea) persistAlways() error {
	p.s.Cfg.Policy.PersistAlways = true
	return nil
}

// ownProfile keeps an ALWAYS answer stored by this scenario away from every
// other scenario that the same kernel process serves.
func (p *planArea) ownProfile() error {
	p.s.Cfg.Profile = "conform-" + p.s.SessionID
	return nil
}

// secondSession runs one more root session with the same config on the same
// kernel, after the first one ended.
func (p *planArea) secondSession(ctx context.Context) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if s.kernel == nil {
		return errors.New("the first session left no kernel to run a second one on")
	}
	id := s.SessionID + "-second"
	_, err := s.kernel.Run(ctx, s.World, wire.RunParams{SessionID: id, Prompt: s.Prompt, Config: s.Cfg}, s.env.ScenarioTimeout)
	var rej *driver.ConfigRejected
	switch {
	case errors.As(err, &rej):
		return fmt.Errorf("the kernel rejected the second session's config: %s", rej.Message)
	case err != nil:
		s.Fault = err
		return err
	}
	if pr := s.World.Problems(); len(pr) > 0 {
		s.Fault = &driver.Fault{What: strings.Join(pr, "; ")}
		return s.Fault
	}
	p.second = id
	return nil
}

// Views.

func decodeObject(raw []byte) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return m
}

func compact(raw []byte) string {
	if len(raw) == 0 {
		return "null"
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return cmp.Equal(x, y)
}

// sessionRequests are one session's requests in arrival order.
func (s *Scenario) sessionRequests(session string) []calllog.Entry {
	return s.World.Log.Select(func(e *calllog.Entry) bool {
		return e.Kind == calllog.Request && e.SessionID == session
	})
}

// permissionItems are the items of one session's permission requests, with
// the request that carried each.
type askedItem struct {
	item  wire.PlanItem
	entry calllog.Entry
}

func (s *Scenario) permissionItems(session string) []askedItem {
	var out []askedItem
	for _, e := range s.sessionRequests(session) {
		if v, ok := e.Value.(wire.PermissionParams); ok {
			for _, it := range v.Items {
				out = append(out, askedItem{it, e})
			}
		}
	}
	return out
}

// modelCalls are the tool calls the fake model emitted to the root
// session, in order.
func (s *Scenario) modelCalls() []wire.StreamEvent {
	var out []wire.StreamEvent
	for _, e := range s.requests() {
		if e.Method != wire.MethodModelStream {
			continue
		}
		var r wire.ModelStreamResult
		_ = json.Unmarshal(e.Result, &r)
		for _, ev := range r.Events {
			if ev.Type == wire.EventToolCall {
				out = append(out, ev)
			}
		}
	}
	return out
}

func (s *Scenario) callIDsOf(tool string) []string {
	var ids []string
	for _, c := range s.modelCalls() {
		if c.Name == tool {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// eventEntries are one session's events of a kind, as recorded.
func (s *Scenario) eventEntries(session, kind string) []calllog.Entry {
	return s.World.Log.Select(func(e *calllog.Entry) bool {
		ev, ok := e.Value.(wire.Event)
		return ok && ev.SessionID == session && ev.Kind == kind
	})
}

func payloadString(ev wire.Event, key string) string {
	v, _ := ev.Payload[key].(string)
	return v
}

// Checks.

func (p *planArea) askedTimes(session, tool string, n int) error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	if session == "" {
		return errors.New("the second session has not run (add \"a second session runs under the same profile\")")
	}
	var at []string
	for _, a := range p.s.permissionItems(session) {
		if a.item.Tool == tool {
			at = append(at, fmt.Sprintf("#%d", a.entry.Seq))
		}
	}
	if len(at) != n {
		return fmt.Errorf("expected the frontend to be asked about %q %d time(s) in session %s, it was asked %d time(s) %v", tool, n, session, len(at), at)
	}
	return nil
}

func (p *planArea) neverAsked(list string) error {
	for _, t := range quotedList(list) {
		if err := p.askedTimes(p.s.SessionID, t, 0); err != nil {
			return err
		}
	}
	return nil
}

func (p *planArea) noRequest(method string) error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	for _, e := range p.s.requests() {
		if e.Method == method {
			return fmt.Errorf("expected no %s request, the kernel sent %q (#%d)", method, e.Label, e.Seq)
		}
	}
	return nil
}

func (p *planArea) batched(a, b string) error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	var seen []string
	for _, e := range p.s.requests() {
		v, ok := e.Value.(wire.PermissionParams)
		if !ok {
			continue
		}
		var tools []string
		for _, it := range v.Items {
			tools = append(tools, it.Tool)
		}
		if slices.Contains(tools, a) && slices.Contains(tools, b) {
			return nil
		}
		seen = append(seen, fmt.Sprintf("#%d %v", e.Seq, tools))
	}
	return fmt.Errorf("expected one permission request asking about both %q and %q; the kernel sent %v", a, b, seen)
}

// turnID is the id the kernel gave turn n (from its context/assemble).
func (s *Scenario) turnID(n int) (string, error) {
	ts := s.turns()
	if n < 1 || n >= len(ts) || len(ts[n]) == 0 {
		return "", fmt.Errorf("expected a turn %d, the kernel ran %d turns", n, len(ts)-1)
	}
	return ts[n][0].TurnID, nil
}

// planRowsOf are the plan_item events of one turn of the root session.
func (s *Scenario) planRowsOf(turn string) []calllog.Entry {
	var out []calllog.Entry
	for _, e := range s.eventEntries(s.SessionID, wire.EventPlanItem) {
		ev := e.Value.(wire.Event)
		if ev.TurnID == turn || payloadString(ev, "turn_id") == turn {
			out = append(out, e)
		}
	}
	return out
}

// resourceCallsOf are the resource tool calls of turn n's model reply.
func (s *Scenario) resourceCallsOf(n int) []wire.StreamEvent {
	var out []wire.StreamEvent
	for _, e := range s.turns()[n] {
		if e.Method != wire.MethodModelStream {
			continue
		}
		var r wire.ModelStreamResult
		_ = json.Unmarshal(e.Result, &r)
		for _, ev := range r.Events {
			if ev.Type == wire.EventToolCall && s.kindOf(ev.Name) == wire.KindResource {
				out = append(out, ev)
			}
		}
	}
	return out
}

// PA-14 (and PA-01): one row per resource call, with the fields the
// plan_items table has, written at plan-ready.
func (p *planArea) planRows(nth string, table *godog.Table) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	n, err := ordinal(nth)
	if err != nil {
		return err
	}
	turn, err := s.turnID(n)
	if err != nil {
		return err
	}
	rows := s.planRowsOf(turn)
	calls := s.resourceCallsOf(n)
	if len(rows) != len(calls) {
		return fmt.Errorf("expected %d plan_item rows in turn %d (one per resource call), the kernel reported %d", len(calls), n, len(rows))
	}
	byCall := map[string]wire.Event{}
	for _, r := range rows {
		ev := r.Value.(wire.Event)
		id := payloadString(ev, "tool_call_id")
		if _, dup := byCall[id]; dup {
			return fmt.Errorf("two plan_item rows name tool_call_id %q", id)
		}
		byCall[id] = ev
	}
	for _, c := range calls {
		ev, ok := byCall[c.ID]
		if !ok {
			return fmt.Errorf("no plan_item row in turn %d names the call %s (%s); rows name %v", n, c.ID, c.Name, slices.Collect(mapKeys(byCall)))
		}
		want, _ := p.tool(c.Name)
		switch d := payloadString(ev, "decision"); {
		case payloadString(ev, "tool") != c.Name:
			return fmt.Errorf("the plan_item row of call %s names tool %q, the call is to %q", c.ID, payloadString(ev, "tool"), c.Name)
		case want != nil && payloadString(ev, "provider") != want.Provider:
			return fmt.Errorf("the plan_item row of call %s names provider %q, the tool's provider is %q", c.ID, payloadString(ev, "provider"), want.Provider)
		case d != wire.PolicyAllow && d != wire.PolicyAsk && d != wire.PolicyDeny:
			return fmt.Errorf("the plan_item row of call %s has decision %q, expected allow, ask or deny", c.ID, d)
		case payloadString(ev, "decided_by") == "":
			return fmt.Errorf("the plan_item row of call %s has no decided_by", c.ID)
		}
	}
	for _, r := range table.Rows {
		tool, want := strings.TrimSpace(r.Cells[0].Value), strings.TrimSpace(r.Cells[1].Value)
		if tool == "tool" {
			continue // header
		}
		found := false
		for _, ev := range byCall {
			if payloadString(ev, "tool") == tool {
				found = true
				if got := payloadString(ev, "decision"); got != want {
					return fmt.Errorf("expected the plan_item row of %q to have decision %q, it has %q (decided_by %q)", tool, want, got, payloadString(ev, "decided_by"))
				}
			}
		}
		if !found {
			return fmt.Errorf("no plan_item row in turn %d names %q", n, tool)
		}
	}
	// Written at plan-ready: before the first permission request or
	// resource invoke of the turn.
	for _, e := range s.turns()[n] {
		isApply := e.Method == wire.MethodToolInvoke && s.kindOf(e.Value.(wire.ToolInvokeParams).Tool) == wire.KindResource
		if e.Method != wire.MethodFrontendPermission && !isApply {
			continue
		}
		for _, r := range rows {
			if r.Seq > e.Seq {
				return fmt.Errorf("the plan_item row #%d came after %q (#%d); rows are written when the plan is ready, before anyone is asked or anything applied", r.Seq, e.Label, e.Seq)
			}
		}
		break
	}
	return nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func (p *planArea) distinctDeciders(nth string) error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	n, err := ordinal(nth)
	if err != nil {
		return err
	}
	turn, err := p.s.turnID(n)
	if err != nil {
		return err
	}
	seen := map[string]string{}
	for _, r := range p.s.planRowsOf(turn) {
		ev := r.Value.(wire.Event)
		by := payloadString(ev, "decided_by")
		if other, dup := seen[by]; dup {
			return fmt.Errorf("the plan_item rows of %q and %q both say decided_by %q; each item should be decided on its own", other, payloadString(ev, "tool"), by)
		}
		seen[by] = payloadString(ev, "tool")
	}
	if len(seen) < 2 {
		return fmt.Errorf("expected several plan_item rows in turn %d, found %d", n, len(seen))
	}
	return nil
}

func (p *planArea) everyCallHasRow(tool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ids := s.callIDsOf(tool)
	if len(ids) == 0 {
		return fmt.Errorf("the model made no call to %q", tool)
	}
	rows := map[string]bool{}
	for _, e := range s.eventEntries(s.SessionID, wire.EventPlanItem) {
		rows[payloadString(e.Value.(wire.Event), "tool_call_id")] = true
	}
	for _, id := range ids {
		if !rows[id] {
			return fmt.Errorf("the call %s to %q has no plan_item row; a row is written for every item, also for items decided without asking", id, tool)
		}
	}
	return nil
}

// resultsFor finds, in model request n, the results of the calls to tool
// made in the assistant message just before them.
func (p *planArea) resultsFor(nth, tool string) ([]wire.ContentBlock, error) {
	r, err := p.s.modelRequest(nth)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, m := range r.Messages {
		if m.Role != "assistant" {
			continue
		}
		var mine []string
		for _, c := range m.Content {
			if c.Type == wire.BlockToolUse && c.Name == tool {
				mine = append(mine, c.ID)
			}
		}
		if len(mine) > 0 {
			ids = mine // the latest message with such calls
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("model request %s holds no call to %q", nth, tool)
	}
	var out []wire.ContentBlock
	for _, id := range ids {
		found := false
		for _, m := range r.Messages {
			for _, c := range m.Content {
				if c.Type == wire.BlockToolResult && c.ToolUseID == id {
					out, found = append(out, c), true
				}
			}
		}
		if !found {
			return nil, fmt.Errorf("model request %s holds no tool_result for the call %s to %q", nth, id, tool)
		}
	}
	return out, nil
}

// invokedCall reports whether a tool/invoke ran for a call id.
func (s *Scenario) invokedCall(id string) (calllog.Entry, bool) {
	for _, e := range s.World.Log.Entries() {
		if v, ok := e.Value.(wire.ToolInvokeParams); ok && v.CallID == id {
			return e, true
		}
	}
	return calllog.Entry{}, false
}

// PA-03: the denied call never ran and its result tells the model why.
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
		if strings.TrimSpace(r.Content) == "" {
			return fmt.Errorf("the denial result of the call %s to %q in model request %s gives no reason (empty content)", r.ToolUseID, tool, nth)
		}
	}
	return nil
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

// PA-12: a missing, failing or hanging preview leaves the item without one,
// and the human still sees the raw input.
func (p *planArea) noPreviewButInput(tool string) error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	a, err := p.firstAsked(tool)
	if err != nil {
		return err
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

// defaultPreviewDeadline is assumed for a kernel that declares no reading
// plan.preview_timeout_ms.
const defaultPreviewDeadline = 5 * time.Second

// previewSlack is the generous allowance on top of the deadline: a loaded
// machine must not flip the verdict.
const previewSlack = 3 * time.Second

func (p *planArea) previewDeadline(tool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	a, err := p.firstAsked(tool)
	if err != nil {
		return err
	}
	deadline := defaultPreviewDeadline
	if v, ok := s.env.Info.Readings["plan.preview_timeout_ms"]; ok {
		if ms, err := strconv.Atoi(v); err == nil {
			deadline = time.Duration(ms) * time.Millisecond
		}
	}
	for _, e := range s.requests() {
		if v, ok := e.Value.(wire.ToolPreviewParams); ok && v.Tool == tool {
			if waited := a.entry.Start.Sub(e.Start); waited > deadline+previewSlack {
				return fmt.Errorf("the permission request about %q came %v after its preview request, past the kernel's preview deadline of %v (plus %v slack)", tool, waited.Round(time.Millisecond), deadline, previewSlack)
			}
			if len(e.Result) > 0 && e.EndSeq < a.entry.Seq {
				return fmt.Errorf("the hanging preview of %q was answered (#%d) before the permission request", tool, e.EndSeq)
			}
			return nil
		}
	}
	return nil // the kernel did not ask for the preview, so it did not wait for it
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

// PA-05: the breaker ends the session like a bound, with the status the
// kernel declares for it; without a reading any status that names a
// limit will do, but never running, completed or failed.
func (p *planArea) breakerStatus() error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	got := s.Result.Status
	if want, ok := s.env.Info.Readings["circuit_breaker.status"]; ok {
		if got != want {
			return fmt.Errorf("expected the session to end with the kernel's circuit-breaker status %q, it ended %q", want, got)
		}
		return nil
	}
	switch got {
	case wire.StatusRunning, wire.StatusCompleted, wire.StatusFailed:
		return fmt.Errorf("expected the session to end with a status naming a limit after the circuit breaker tripped, it ended %q", got)
	}
	return nil
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
