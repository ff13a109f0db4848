package steps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

// More of the deterministic-first profile (PROTOCOL.md §17): conditions
// judged many at a time, the config a kernel must refuse, memory/write's
// answers, what the model sees of a gated call, and what a step's call
// carries. Registered from dfirst.go's area so they share its state.
func dfMoreSteps(d *dfArea, s *Scenario, sc stepper) {
	// Setup.
	sc.Step(stepRE(`^the session's active skill starts as "([^"]+)"$`), func(skill string) error { d.cfg().ActiveSkill = skill; return nil })
	// The fake sends the text first, then the switch, then the calls.
	sc.Step(stepRE(`^the model answers request (\d+) with text "([^"]*)", a switch to skill "([^"]+)" and calls? (.+)$`), func(n int, text, skill, calls string) error {
		cs, err := parseCalls(calls)
		if err != nil {
			return err
		}
		d.s.World.Model.On(n, fakes.Reply{Text: text, Switch: skill, Calls: cs})
		return nil
	})
	sc.Step(stepRE(`^the tool "([^"]+)" answers "([^"]*)"$`), func(tool, text string) error {
		out, _ := json.Marshal(text)
		d.s.World.Tools.Update(tool, func(b *fakes.ToolBehavior) { b.Output = out })
		if d.outputs == nil {
			d.outputs = map[string]string{}
		}
		d.outputs[tool] = text
		return nil
	})
	sc.Step(stepRE(`^the model answers request (\d+) with a retryable "(overloaded|rate_limited)" error$`), func(n int, category string) error {
		d.s.World.Model.On(n, fakes.Reply{Error: &wire.ModelError{Category: category, Message: "fake model error: " + category, Retryable: true}})
		return nil
	})
	sc.Step(stepRE(`^session memory starts as this JSON object:$`), d.memoryJSON)
	sc.Step(stepRE(`^these tools, each gated as the table says:$`), d.gateTable)
	sc.Step(stepRE(`^the deterministic_first block is:$`), d.rawConfig)
	sc.Step(stepRE(`^the tool "([^"]+)" writes (.+) to memory of session "([^"]+)" as it runs$`), func(tool, args, session string) error {
		return d.writesWith(tool, args, func(mt *fakes.MemoryTool) { mt.WriteTo = session })
	})
	sc.Step(stepRE(`^the tool "([^"]+)" writes (.+) to memory in the name of the finished call of "([^"]+)"$`), func(tool, args, of string) error {
		return d.writesWith(tool, args, func(mt *fakes.MemoryTool) { mt.WriteAsCallOf = of })
	})
	sc.Step(stepRE(`^the harness writes (.+) to memory of the ended session for the call of "([^"]+)"$`), d.writeAfterRun)
	sc.Step(stepRE(`^the first confirmation of "([^"]+)" has the harness cancel the session, then waits to be cancelled$`), func(tool string) error {
		d.s.World.DF.SetConfirmCancels(tool)
		return nil
	})

	// Checks.
	sc.Step(stepRE(`^the kernel refused the deterministic_first config before the session started$`), s.proves(d.configRefused, "DF-01", "DF-03", "DF-04", "DF-06"))
	sc.Step(stepRE(`^model request (\d+) offered exactly the tools whose gates the table marks open$`), s.proves(d.offeredAsTable, "DF-04"))
	sc.Step(stepRE(`^the kernel refused the (\d+) memory/writes? of "([^"]+)" to (its own session|session "[^"]+"), each with error (-?\d+)$`), s.proves(d.writesRefused, "DF-08"))
	sc.Step(stepRE(`^model request (\d+) holds the output of the call to "([^"]+)"$`), s.proves(d.holdsOutput, "DF-03"))
	sc.Step(stepRE(`^model request (\d+) holds the action "([^"]*)" as an assistant message$`), s.proves(d.holdsAction, "DF-01"))
	sc.Step(stepRE(`^model request (\d+) holds a refusal for the call to "([^"]+)"$`), s.proves(d.holdsRefusal, "DF-03", "DF-05"))
	sc.Step(stepRE(`^the step's call to "([^"]+)" went to provider "([^"]+)" as attempt 1 with input (.+)$`), s.proves(d.stepCall, "DF-01"))
	sc.Step(stepRE(`^the user was asked to confirm "([^"]+)" (\d+) times?$`), s.proves(d.confirmsAsked, "DF-05", "DF-09"))
	sc.Step(stepRE(`^the second session's model request (\d+) did not offer the tool "([^"]+)"$`), s.proves(d.secondNotOffered, "DF-08"))
}

// gateTable reads | tool | requires | open or closed |: each row adds one
// clause to its tool's requires list (a tool named on two rows is gated on
// both clauses), and the last column is what the spec's table in §17.1 makes
// of the whole list on the memory the scenario starts with.
func (d *dfArea) gateTable(t *godog.Table) error {
	if d.gateWant == nil {
		d.gateWant = map[string]bool{}
	}
	for i, r := range t.Rows {
		if len(r.Cells) != 3 {
			return fmt.Errorf("row %d: write | tool | requires | open or closed |", i+1)
		}
		tool, cond, want := strings.TrimSpace(r.Cells[0].Value), strings.TrimSpace(r.Cells[1].Value), strings.TrimSpace(r.Cells[2].Value)
		if i == 0 && tool == "tool" {
			continue // a header row
		}
		if want != "open" && want != "closed" {
			return fmt.Errorf("row %d: the gate is open or closed, not %q", i+1, want)
		}
		if old, ok := d.gateWant[tool]; ok && old != (want == "open") {
			return fmt.Errorf("row %d: the tool %q is marked both open and closed", i+1, tool)
		}
		if _, err := d.s.tool(tool); err != nil {
			if err := d.s.declareTool(wire.KindDataSource, tool, "gates", "", ""); err != nil {
				return err
			}
			d.gateOrder = append(d.gateOrder, tool)
		}
		d.gateWant[tool] = want == "open"
		if err := d.gate(tool, cond); err != nil {
			return fmt.Errorf("row %d: %w", i+1, err)
		}
	}
	return nil
}

// memoryJSON adds the keys of a JSON object to the initial memory, for
// values the inline form cannot write (null, arrays, objects).
func (d *dfArea) memoryJSON(doc *godog.DocString) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(doc.Content), &m); err != nil {
		return fmt.Errorf("the initial memory is not a JSON object: %w", err)
	}
	c := d.cfg()
	if c.Memory == nil {
		c.Memory = map[string]json.RawMessage{}
	}
	for k, v := range m {
		var buf bytes.Buffer
		_ = json.Compact(&buf, v)
		c.Memory[k] = buf.Bytes()
	}
	return nil
}

// rawConfig sets the deterministic_first block as written, for the configs
// the steps above cannot say (and the ones a kernel must refuse).
func (d *dfArea) rawConfig(doc *godog.DocString) error {
	var c wire.DFConfig
	dec := json.NewDecoder(strings.NewReader(doc.Content))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return fmt.Errorf("the deterministic_first block is not a DFConfig: %w", err)
	}
	d.s.Cfg.DeterministicFirst = &c
	return nil
}

func (d *dfArea) writesWith(tool, args string, set func(*fakes.MemoryTool)) error {
	m, err := dfValues(args)
	if err != nil {
		return err
	}
	mt := d.tools[tool]
	mt.Writes = m
	set(&mt)
	d.tools[tool] = mt
	d.s.World.DF.SetTool(tool, mt)
	return nil
}

// writeAfterRun: once the run has ended, the harness writes memory naming
// the session and the call_id of the tool's first call, as a tool still
// running would. The kernel's answer is a check's business.
func (d *dfArea) writeAfterRun(ctx context.Context, args, tool string) error {
	if err := d.s.mustHaveRun(); err != nil {
		return err
	}
	m, err := dfValues(args)
	if err != nil {
		return err
	}
	ts := d.invokes(tool)
	if len(ts) == 0 {
		return fmt.Errorf("the kernel never invoked %q, so there is no call to write memory for", tool)
	}
	p := ts[0].Value.(wire.ToolInvokeParams)
	_ = d.s.World.DF.WriteAs(ctx, tool, wire.MemoryWriteParams{SessionID: d.s.SessionID, CallID: p.CallID, Values: m}, "")
	return nil
}

// Checks.

// configRefused: §17.2, a block the profile cannot run as written is
// refused (-32001) before the session starts, never run with the part the
// kernel cannot honour dropped: a gate on a tool the session lacks, a step
// it cannot run, a skill it cannot tell apart, a clause it cannot evaluate.
// The scenario's tag names the requirement the refused part serves.
func (d *dfArea) configRefused() error {
	if err := d.s.mustHaveStarted(); err != nil {
		return err
	}
	if d.s.Rejected == nil {
		return fmt.Errorf("expected the kernel to refuse the deterministic_first block (error %d) before the session started, it accepted it and the session ended %q",
			wire.CodeConfigRejected, d.s.Result.Status)
	}
	return nil
}

// offeredAsTable: DF-04, every tool of the gate table is offered exactly
// when the table marks its gate open: only a list whose every clause
// evaluates true opens a gate. (That a closed gate hides its tool at all is
// DF-02's own scenario.)
func (d *dfArea) offeredAsTable(n int) error {
	if len(d.gateOrder) == 0 {
		return scenarioDefect("no gate table in the scenario (add \"these tools, each gated as the table says:\")")
	}
	r, err := d.s.modelRequest(fmt.Sprint(n))
	if err != nil {
		return err
	}
	got := dfNames(r.Tools, func(t wire.ToolSpec) string { return t.Name })
	var wrong []string
	for _, tool := range d.gateOrder {
		want := d.gateWant[tool]
		if slices.Contains(got, tool) != want {
			g, _ := d.s.tool(tool)
			var conds []string
			for _, c := range d.gateOf(tool).Requires {
				conds = append(conds, fmt.Sprintf("%s %s %s", c.Key, dfOr(c.Op, "truthy"), string(c.Value)))
			}
			state := map[bool]string{true: "open (offered)", false: "closed (not offered)"}[want]
			wrong = append(wrong, fmt.Sprintf("%q (%s) should be %s", g.Name, strings.Join(conds, " and "), state))
		}
	}
	if len(wrong) > 0 {
		return fmt.Errorf("model request %d offered the wrong gated tools on the memory %s: %s", n, d.memoryText(), strings.Join(wrong, "; "))
	}
	return nil
}

func dfOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (d *dfArea) memoryText() string {
	c := d.cfg()
	b, _ := json.Marshal(c.Memory)
	return string(b)
}

// writesRefused: §17.5, a memory/write the kernel does not commit is
// answered with an error, never with {} (which says committed): -32005 for
// a session the kernel does not know, -32602 for a session without the
// profile, or a call_id that is not a tool/invoke of the session in flight.
// memory/write is the write path DF-08 rests on.
func (d *dfArea) writesRefused(n int, tool, target string, code int) error {
	if err := d.s.mustHaveRun(); err != nil {
		return err
	}
	session := d.s.SessionID
	if target != "its own session" {
		session = strings.TrimSuffix(strings.TrimPrefix(target, `session "`), `"`)
	}
	var mine []fakes.WriteOutcome
	for _, w := range d.s.World.DF.Writes() {
		if w.Tool == tool && w.SessionID == session {
			mine = append(mine, w)
		}
	}
	if len(mine) < n {
		return notReached("the harness sent %d memory/write(s) of %q to session %s, not the %d this check reads (the tool did not run as often)", len(mine), tool, session, n)
	}
	for i, w := range mine {
		var rpc *jsonrpc.Error
		switch {
		case w.Err == nil:
			return fmt.Errorf("expected memory/write %d of %q (session %s, call_id %s) to be refused with error %d, the kernel answered {} as if it had committed it",
				i+1, tool, session, w.CallID, code)
		case !errors.As(w.Err, &rpc):
			return fmt.Errorf("expected memory/write %d of %q (session %s) to be answered with error %d, it failed with: %v", i+1, tool, session, code, w.Err)
		case rpc.Code != code:
			return fmt.Errorf("expected memory/write %d of %q (session %s, call_id %s) to be refused with error %d, the kernel answered error %d: %q",
				i+1, tool, session, w.CallID, code, rpc.Code, rpc.Message)
		}
	}
	return nil
}

// dfResults are the tool_results model request n holds for the calls of
// tool (the latest assistant message that called it).
func (d *dfArea) dfResults(n int, tool string) ([]wire.ContentBlock, error) {
	r, err := d.s.modelRequest(fmt.Sprint(n))
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, m := range r.Messages {
		var mine []string
		for _, c := range m.Content {
			if m.Role == "assistant" && c.Type == wire.BlockToolUse && c.Name == tool {
				mine = append(mine, c.ID)
			}
		}
		if len(mine) > 0 {
			ids = mine
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("expected model request %d to hold the model's call to %q, it holds none", n, tool)
	}
	var out []wire.ContentBlock
	for _, id := range ids {
		i := slices.IndexFunc(r.Messages, func(m wire.Message) bool {
			return slices.ContainsFunc(m.Content, func(c wire.ContentBlock) bool { return c.Type == wire.BlockToolResult && c.ToolUseID == id })
		})
		if i < 0 {
			return nil, fmt.Errorf("expected model request %d to hold a tool_result for the call %s to %q, it holds none", n, id, tool)
		}
		for _, c := range r.Messages[i].Content {
			if c.Type == wire.BlockToolResult && c.ToolUseID == id {
				out = append(out, c)
			}
		}
	}
	return out, nil
}

// holdsOutput: DF-03, a call the gate let through ran, and its result is
// the tool's own answer (the scripted output), not a refusal.
func (d *dfArea) holdsOutput(n int, tool string) error {
	rs, err := d.dfResults(n, tool)
	if err != nil {
		return err
	}
	text, ok := d.outputs[tool]
	if !ok {
		return scenarioDefect("the scenario scripts no output for %q (add \"the tool %q answers \"...\"\")", tool, tool)
	}
	for _, r := range rs {
		if r.IsError || !strings.Contains(r.Content, text) {
			return fmt.Errorf("expected the result of the call %s to %q in model request %d to be the tool's own output %q, it is %q (is_error %v)",
				r.ToolUseID, tool, n, text, r.Content, r.IsError)
		}
	}
	return nil
}

// holdsAction: DF-01, an action step delivers its text to the user by
// appending it to the history as an assistant message (PROTOCOL.md §17.3),
// so the model request after the pass sees it.
func (d *dfArea) holdsAction(n int, text string) error {
	p, err := d.s.modelRequest(strconv.Itoa(n))
	if err != nil {
		return err
	}
	var seen []string
	for _, m := range p.Messages {
		if m.Role != "assistant" {
			continue
		}
		for _, b := range m.Content {
			if b.Type == wire.BlockText {
				if b.Text == text {
					return nil
				}
				seen = append(seen, strconv.Quote(b.Text))
			}
		}
	}
	return fmt.Errorf("model request %d holds no assistant message with the action's text %q (assistant texts: %s)", n, text, strings.Join(seen, ", "))
}

// holdsRefusal: DF-03, a call behind a closed gate never ran, and the model
// is told so with a result that refuses it, by the one rule every denial
// check shares (denied); DF-05, the same for a call the user did not
// confirm. An empty result without is_error fails it: the model reads that
// as the tool having run with no output (PROTOCOL.md §17.4).
func (d *dfArea) holdsRefusal(n int, tool string) error {
	rs, err := d.dfResults(n, tool)
	if err != nil {
		return err
	}
	for _, r := range rs {
		if err := d.s.denied(r.ToolUseID, tool, &r, fmt.Sprint(n)); err != nil {
			return err
		}
	}
	return nil
}

// stepCall: DF-01, an execute_tool step runs its tool as declared: the
// tool's provider, the step's input ({} when the step has none, §17.10) and
// a first attempt (§7.4).
func (d *dfArea) stepCall(tool, provider, input string) error {
	if err := d.s.mustHaveRun(); err != nil {
		return err
	}
	var want any
	if err := json.Unmarshal([]byte(input), &want); err != nil {
		return fmt.Errorf("the expected input %s is not JSON: %w", input, err)
	}
	ts := d.invokes(tool)
	if len(ts) == 0 {
		return fmt.Errorf("expected the step to invoke %q, the kernel never did", tool)
	}
	p := ts[0].Value.(wire.ToolInvokeParams)
	var got any
	gotRaw := bytes.TrimSpace(p.Input)
	switch {
	case p.Provider != provider:
		return fmt.Errorf("expected the step's call to %q to go to provider %q, its tool/invoke (#%d) names provider %q", tool, provider, ts[0].Seq, p.Provider)
	case p.Attempt != 1:
		return fmt.Errorf("expected the step's call to %q (#%d) to be attempt 1, it is attempt %d", tool, ts[0].Seq, p.Attempt)
	case json.Unmarshal(gotRaw, &got) != nil || !dfSameJSON(gotRaw, []byte(input)):
		return fmt.Errorf("expected the step's call to %q (#%d) to carry input %s, it carries %s", tool, ts[0].Seq, input, dfOr(string(gotRaw), "nothing"))
	}
	return nil
}

// confirmsAsked: DF-05, the user is asked before each attempt to run a call
// that needs confirmation; and DF-09, a step cancelled while the user was
// asked has not run, so the next message asks again.
func (d *dfArea) confirmsAsked(tool string, n int) error {
	if err := d.s.mustHaveRun(); err != nil {
		return err
	}
	var asks int
	for _, e := range d.s.requests() {
		if v, ok := e.Value.(wire.ConfirmParams); ok && v.Tool == tool {
			asks++
		}
	}
	if asks != n {
		return fmt.Errorf("expected the user to be asked %d times to confirm %q (frontend/confirm), the kernel asked %d times", n, tool, asks)
	}
	return nil
}

// secondNotOffered (DF-08, issue 29): a second session of the same
// configuration starts from its own initial memory, so a gate that only
// the first session's run opened is closed at its first request. A kernel
// that keeps the profile's state per configuration instead of per session
// offers the tool.
func (d *dfArea) secondNotOffered(n int, tool string) error {
	if err := d.s.mustHaveRun(); err != nil {
		return err
	}
	id := d.s.SessionID + "-second"
	var rs []wire.ModelStreamParams
	for _, e := range d.s.World.Log.Select(func(e *calllog.Entry) bool {
		return e.Kind == calllog.Request && e.SessionID == id
	}) {
		if p, ok := e.Value.(wire.ModelStreamParams); ok {
			rs = append(rs, p)
		}
	}
	if n < 1 || n > len(rs) {
		return notReached("there is no model request %d of the second session %s: the kernel sent %d", n, id, len(rs))
	}
	got := dfNames(rs[n-1].Tools, func(t wire.ToolSpec) string { return t.Name })
	if slices.Contains(got, tool) {
		return fmt.Errorf("expected the second session's model request %d not to offer %q, whose gate only the first session's run opened; it offered: %s", n, tool, dfListed(got))
	}
	return nil
}
