package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// The deterministic-first profile (DF-01 … DF-10, PROTOCOL.md §17). The
// profile is observed where the protocol shows it: the tools and skills of
// each model request, the order of tool/invoke, frontend/confirm and
// model/stream requests in the call log, the memory and call records of
// each run's result, and the kernel's handling of a cancel.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		d := &dfArea{s: s, tools: map[string]fakes.MemoryTool{}}
		// Setup.
		sc.Step(stepRE(`^the session uses the deterministic-first profile$`), func() error { d.cfg(); return nil })
		sc.Step(stepRE(`^session memory starts with (.+)$`), d.initialMemory)
		sc.Step(stepRE(`^the tool "([^"]+)" is gated on (.+)$`), d.gate)
		sc.Step(stepRE(`^the tool "([^"]+)" needs the user's confirmation$`), d.needsConfirmation)
		sc.Step(stepRE(`^the user answers (yes|no) when asked to confirm "([^"]+)"$`), d.confirmAnswer)
		sc.Step(stepRE(`^the tool "([^"]+)" writes (.+) to memory as it runs$`), d.writes)
		sc.Step(stepRE(`^the first call to "([^"]+)" has the harness cancel the session, then waits to be cancelled$`), d.cancelsThenWaits)
		sc.Step(stepRE(`^a block "([^"]+)" with these steps:$`), d.block)
		sc.Step(stepRE(`^a skill "([^"]+)" the model may always route to$`), func(name string) error { return d.skill(name, "") })
		sc.Step(stepRE(`^a skill "([^"]+)" the model may route to only while memory holds (.+)$`), d.skill)
		sc.Step(stepRE(`^the model answers request (\d+) by switching to skill "([^"]+)"$`), d.switchSkill)
		sc.Step(stepRE(`^the harness cancels the session while model request (\d+) is in flight$`), d.cancelDuringModel)
		sc.Step(stepRE(`^the user sends the next message "([^"]*)"$`), d.nextMessage)

		// Checks.
		sc.Step(stepRE(`^model request (\d+) offered the tools? (.+)$`), s.proves(func(n int, names string) error { return d.offeredTools(n, names, true) }, "DF-01", "DF-02", "DF-04", "DF-10"))
		sc.Step(stepRE(`^model request (\d+) did not offer the tools? (.+)$`), s.proves(func(n int, names string) error { return d.offeredTools(n, names, false) }, "DF-02", "DF-04", "DF-10"))
		sc.Step(stepRE(`^model request (\d+) offered the skills? (.+)$`), s.proves(func(n int, names string) error { return d.offeredSkills(n, names, true) }, "DF-06"))
		sc.Step(stepRE(`^model request (\d+) did not offer the skills? (.+)$`), s.proves(func(n int, names string) error { return d.offeredSkills(n, names, false) }, "DF-06"))
		sc.Step(stepRE(`^model request (\d+) had "([^"]+)" as its active skill$`), s.proves(func(n int, skill string) error { return d.activeSkill(n, skill, true) }, "DF-06"))
		sc.Step(stepRE(`^model request (\d+) did not have "([^"]+)" as its active skill$`), s.proves(func(n int, skill string) error { return d.activeSkill(n, skill, false) }, "DF-06"))
		sc.Step(stepRE(`^the run's memory holds (.+)$`), s.proves(d.memoryHolds, "DF-01", "DF-08"))
		sc.Step(stepRE(`^the run recorded (no|\d+) calls? of "([^"]+)"$`), s.proves(d.recorded, "DF-03", "DF-09", "DF-10"))
		sc.Step(stepRE(`^"([^"]+)" ran after "([^"]+)" had answered and before model request (\d+)$`), s.proves(d.ranBetween, "DF-03", "DF-10"))
		sc.Step(stepRE(`^"([^"]+)" had answered before model request (\d+) arrived$`), s.proves(d.answeredBefore, "DF-01"))
		sc.Step(stepRE(`^the user was asked to confirm "([^"]+)"( before it ran)?$`), s.proves(d.askedToConfirm, "DF-05"))
		sc.Step(stepRE(`^the cancellation was not reported as an error$`), s.proves(d.notAnError, "DF-07"))
		sc.Step(stepRE(`^the kernel abandoned model request (\d+) within (\d+) ms of the cancel$`), s.proves(d.abandonedModel, "DF-07"))
		sc.Step(stepRE(`^the kernel abandoned the call to "([^"]+)" within (\d+) ms of the cancel$`), s.proves(d.abandonedCall, "DF-07", "DF-09"))
		sc.Step(stepRE(`^the run ended within (\d+) ms of the cancel$`), s.proves(d.endedAfterCancel, "DF-07"))
		dfMoreSteps(d, s, sc) // dfirst_more.go
	})
}

type dfArea struct {
	s     *Scenario
	tools map[string]fakes.MemoryTool
	runs  int // runs of the session so far

	gateWant  map[string]bool   // the gate table: tool → open
	gateOrder []string          // the gate table's tools, in order
	outputs   map[string]string // tool → the text it answers
}

// cfg is the session's deterministic_first block, created on first use.
func (d *dfArea) cfg() *wire.DFConfig {
	if d.s.Cfg.DeterministicFirst == nil {
		d.s.Cfg.DeterministicFirst = &wire.DFConfig{}
	}
	return d.s.Cfg.DeterministicFirst
}

// Setup.

// values reads `key "text", other 2, flag true` into memory values.
func dfValues(args string) (map[string]json.RawMessage, error) {
	raw, err := parseArgs(args)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return m, nil
}

func (d *dfArea) initialMemory(args string) error {
	m, err := dfValues(args)
	if err != nil {
		return err
	}
	c := d.cfg()
	if c.Memory == nil {
		c.Memory = map[string]json.RawMessage{}
	}
	for k, v := range m {
		c.Memory[k] = v
	}
	return nil
}

var dfCondRe = regexp.MustCompile(`^"([^"]+)"(?: (above|at least|below|at most|equal to|not equal to) (.+))?$`)

// condition reads `"verified"` (truthy), `"amount" above 100`, `"tier"
// equal to "gold"`.
func dfCondition(text string) ([]wire.DFCondition, error) {
	m := dfCondRe.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return nil, fmt.Errorf(`cannot read the condition %q; write "key" or "key" above 100 (at least, below, at most, equal to, not equal to)`, text)
	}
	c := wire.DFCondition{Key: m[1]}
	if m[2] != "" {
		var v any
		if err := json.Unmarshal([]byte(m[3]), &v); err != nil {
			return nil, fmt.Errorf("the value %s of the condition is not JSON: %w", m[3], err)
		}
		c.Op = map[string]string{"above": wire.OpGt, "at least": wire.OpGe, "below": wire.OpLt, "at most": wire.OpLe,
			"equal to": wire.OpEq, "not equal to": wire.OpNe}[m[2]]
		c.Value = json.RawMessage(m[3])
	}
	return []wire.DFCondition{c}, nil
}

// gateOf is the gate of a tool, created on first use.
func (d *dfArea) gateOf(tool string) *wire.DFToolGate {
	c := d.cfg()
	for i := range c.Tools {
		if c.Tools[i].Tool == tool {
			return &c.Tools[i]
		}
	}
	c.Tools = append(c.Tools, wire.DFToolGate{Tool: tool})
	return &c.Tools[len(c.Tools)-1]
}

func (d *dfArea) gate(tool, cond string) error {
	conds, err := dfCondition(cond)
	if err != nil {
		return err
	}
	g := d.gateOf(tool)
	g.Requires = append(g.Requires, conds...)
	return nil
}

func (d *dfArea) needsConfirmation(tool string) error {
	d.gateOf(tool).RequiresConfirmation = true
	return nil
}

func (d *dfArea) confirmAnswer(answer, tool string) error {
	d.s.World.DF.SetConfirm(tool, answer == "yes")
	return nil
}

func (d *dfArea) writes(tool, args string) error {
	m, err := dfValues(args)
	if err != nil {
		return err
	}
	mt := d.tools[tool]
	mt.Writes = m
	d.tools[tool] = mt
	d.s.World.DF.SetTool(tool, mt)
	return nil
}

func (d *dfArea) cancelsThenWaits(tool string) error {
	mt := d.tools[tool]
	mt.CancelSession, mt.HoldFirst = true, true
	d.tools[tool] = mt
	d.s.World.DF.SetTool(tool, mt)
	return nil
}

// block reads a two-column table: the step type, and what it needs
// (execute_tool: the tool, optionally as a call with arguments; set_memory:
// `key value`; collect: the key; action: the text).
func (d *dfArea) block(name string, t *godog.Table) error {
	b := wire.DFBlock{Name: name, Steps: []wire.DFStep{}}
	for i, r := range t.Rows {
		typ := strings.TrimSpace(r.Cells[0].Value)
		arg := ""
		if len(r.Cells) > 1 {
			arg = strings.TrimSpace(r.Cells[1].Value)
		}
		st := wire.DFStep{Type: typ}
		switch typ {
		case wire.StepExecuteTool:
			st.Tool = arg
			if strings.Contains(arg, "(") {
				calls, err := parseCalls(arg)
				if err != nil || len(calls) != 1 {
					return fmt.Errorf("block %q row %d: write the tool as name or name(key \"value\")", name, i+1)
				}
				st.Tool, st.Input = calls[0].Name, calls[0].Input
			}
		case wire.StepSetMemory:
			m, err := dfValues(arg)
			if err != nil || len(m) != 1 {
				return fmt.Errorf("block %q row %d: write set_memory's detail as `key value`", name, i+1)
			}
			for k, v := range m {
				st.Key, st.Value = k, v
			}
		case wire.StepCollect:
			st.Key = arg
		case wire.StepAction:
			st.Text = arg
		case wire.StepNoop, wire.StepModel:
		default:
			return fmt.Errorf("block %q row %d: unknown step type %q", name, i+1, typ)
		}
		b.Steps = append(b.Steps, st)
	}
	c := d.cfg()
	c.Blocks = append(c.Blocks, b)
	return nil
}

func (d *dfArea) skill(name, cond string) error {
	sk := wire.DFSkill{Name: name, Description: "the fake skill " + name}
	if cond != "" {
		conds, err := dfCondition(cond)
		if err != nil {
			return err
		}
		sk.Requires = conds
	}
	c := d.cfg()
	c.Skills = append(c.Skills, sk)
	return nil
}

func (d *dfArea) switchSkill(n int, skill string) error {
	d.s.World.Model.On(n, fakes.Reply{Switch: skill})
	return nil
}

func (d *dfArea) cancelDuringModel(n int) error {
	d.cfg()
	d.s.World.Model.On(n, fakes.Reply{Hang: true})
	d.s.World.Model.OnHang = d.s.World.DF.Cancel
	return nil
}

// nextMessage re-opens the session with the user's next message: a second
// session/run naming the same session (PROTOCOL.md §17.8). Its result
// replaces the first run's for the checks that follow.
func (d *dfArea) nextMessage(ctx context.Context, msg string) error {
	s := d.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if s.kernel == nil {
		return errors.New("the first run left no kernel to send the next message to")
	}
	res, err := s.kernel.Run(ctx, s.World, wire.RunParams{SessionID: s.SessionID, Prompt: msg, Config: s.Cfg}, s.env.Scale(s.env.ScenarioTimeout))
	var rej *driver.ConfigRejected
	var f *driver.Fault
	switch {
	case errors.As(err, &rej):
		return fmt.Errorf("expected the kernel to re-open the session with the next message, it refused the config: %s", rej.Message)
	case errors.As(err, &f) && s.kernel.Healthy() && strings.Contains(f.What, "answered with error"):
		// A kernel that answers the re-opening with an error has not
		// re-opened it: a failed check, not a broken protocol.
		return fmt.Errorf("expected the kernel to re-open the ended session with the next message, it answered: %s", f.What)
	case err != nil:
		s.Fault = err
		return err
	}
	if pr := s.World.Problems(); len(pr) > 0 {
		s.Fault = &driver.Fault{What: strings.Join(pr, "; ")}
		return s.Fault
	}
	s.Result = res
	d.runs++
	return nil
}

// Views.

// nthModelEntry is the n-th model request of the root session.
func (d *dfArea) nthModelEntry(n int) (calllog.Entry, error) {
	var ms []calllog.Entry
	for _, e := range d.s.requests() {
		if e.Method == wire.MethodModelStream {
			ms = append(ms, e)
		}
	}
	if n < 1 || n > len(ms) {
		return calllog.Entry{}, fmt.Errorf("expected at least %s, the kernel sent %d", plain.Count(n, "model request"), len(ms))
	}
	return ms[n-1], nil
}

// invokes are the root session's tool/invoke requests of a tool.
func (d *dfArea) invokes(tool string) []calllog.Entry {
	var out []calllog.Entry
	for _, e := range d.s.requests() {
		if v, ok := e.Value.(wire.ToolInvokeParams); ok && v.Tool == tool {
			out = append(out, e)
		}
	}
	return out
}

func (d *dfArea) state() (*wire.DFState, error) {
	if err := d.s.mustHaveRun(); err != nil {
		return nil, err
	}
	if d.s.Result.DeterministicFirst == nil {
		return nil, fmt.Errorf("expected the run's result to carry its deterministic_first state (memory and call records), the kernel's result has none (status %q)", d.s.Result.Status)
	}
	return d.s.Result.DeterministicFirst, nil
}

func dfNames[T any](xs []T, name func(T) string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, name(x))
	}
	return out
}

func dfListed(got []string) string {
	if len(got) == 0 {
		return "nothing"
	}
	return strings.Join(got, ", ")
}

// Checks.

func (d *dfArea) offeredTools(n int, list string, want bool) error {
	r, err := d.s.modelRequest(fmt.Sprint(n))
	if err != nil {
		return err
	}
	got := dfNames(r.Tools, func(t wire.ToolSpec) string { return t.Name })
	return d.offered(n, "tool", quotedList(list), got, want)
}

func (d *dfArea) offeredSkills(n int, list string, want bool) error {
	r, err := d.s.modelRequest(fmt.Sprint(n))
	if err != nil {
		return err
	}
	got := dfNames(r.Skills, func(t wire.SkillSpec) string { return t.Name })
	return d.offered(n, "skill", quotedList(list), got, want)
}

func (d *dfArea) offered(n int, what string, names, got []string, want bool) error {
	if len(names) == 0 {
		return fmt.Errorf("no %s named in the step", what)
	}
	for _, name := range names {
		if slices.Contains(got, name) != want {
			verb := "to offer"
			if !want {
				verb = "not to offer"
			}
			return fmt.Errorf("expected model request %d %s the %s %q, it offered: %s", n, verb, what, name, dfListed(got))
		}
	}
	return nil
}

func (d *dfArea) activeSkill(n int, skill string, want bool) error {
	r, err := d.s.modelRequest(fmt.Sprint(n))
	if err != nil {
		return err
	}
	if (r.ActiveSkill == skill) != want {
		if want {
			return fmt.Errorf("expected model request %d to have %q as its active skill, its active skill was %q", n, skill, r.ActiveSkill)
		}
		return fmt.Errorf("expected model request %d not to have %q as its active skill (the switch should have been refused), it had", n, skill)
	}
	return nil
}

func (d *dfArea) memoryHolds(args string) error {
	want, err := dfValues(args)
	if err != nil {
		return err
	}
	st, err := d.state()
	if err != nil {
		return err
	}
	for k, w := range want {
		got, ok := st.Memory[k]
		if !ok || !dfSameJSON(got, w) {
			have := "nothing"
			if ok {
				have = string(got)
			}
			msg := fmt.Sprintf("expected the run's memory to hold %s at %q, it holds %s", w, k, have)
			if errs := d.s.World.DF.WriteErrors(); len(errs) > 0 {
				msg += "; the kernel refused these memory writes: " + strings.Join(errs, "; ")
			}
			return errors.New(msg)
		}
	}
	return nil
}

func dfSameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func (d *dfArea) recorded(count, tool string) error {
	n := 0
	if count != "no" {
		if _, err := fmt.Sscan(count, &n); err != nil {
			return err
		}
	}
	st, err := d.state()
	if err != nil {
		return err
	}
	var got []string
	for _, r := range st.CallRecords {
		if r.Tool == tool {
			got = append(got, r.CallID)
		}
	}
	if len(got) != n {
		return fmt.Errorf("expected the run to record %d calls of %q, it recorded %d (%s); all its records: %s", n, tool, len(got), dfListed(got),
			dfListed(dfNames(st.CallRecords, func(r wire.DFCallRecord) string { return r.Tool + " " + r.CallID + " (" + r.Origin + ")" })))
	}
	return nil
}

// ranBetween: the first invoke of tool came after after's first invoke had
// been answered, and had itself been answered before model request n.
func (d *dfArea) ranBetween(tool, after string, n int) error {
	if err := d.s.mustHaveRun(); err != nil {
		return err
	}
	ts, as := d.invokes(tool), d.invokes(after)
	switch {
	case len(as) == 0:
		return fmt.Errorf("expected %q to run, the kernel never invoked it", after)
	case len(ts) == 0:
		return fmt.Errorf("expected %q to run after %q had answered, the kernel never invoked it", tool, after)
	case !as[0].Answered() || as[0].EndSeq > ts[0].Seq:
		return fmt.Errorf("expected %q (#%d) to start only after %q (#%d) had answered, it started before that", tool, ts[0].Seq, after, as[0].Seq)
	}
	return d.answeredBeforeModel(tool, ts[0], n)
}

func (d *dfArea) answeredBefore(tool string, n int) error {
	if err := d.s.mustHaveRun(); err != nil {
		return err
	}
	ts := d.invokes(tool)
	if len(ts) == 0 {
		return fmt.Errorf("expected %q to run before model request %d, the kernel never invoked it", tool, n)
	}
	return d.answeredBeforeModel(tool, ts[0], n)
}

func (d *dfArea) answeredBeforeModel(tool string, e calllog.Entry, n int) error {
	m, err := d.nthModelEntry(n)
	if err != nil {
		return fmt.Errorf("%w (%q ran as #%d)", err, tool, e.Seq)
	}
	if !e.Answered() || e.EndSeq > m.Seq {
		return fmt.Errorf("expected %q (#%d) to have run and answered before model request %d (#%d), the model was asked first", tool, e.Seq, n, m.Seq)
	}
	return nil
}

func (d *dfArea) askedToConfirm(tool, before string) error {
	if err := d.s.mustHaveRun(); err != nil {
		return err
	}
	var asks []calllog.Entry
	for _, e := range d.s.requests() {
		if v, ok := e.Value.(wire.ConfirmParams); ok && v.Tool == tool {
			asks = append(asks, e)
		}
	}
	if len(asks) == 0 {
		return fmt.Errorf("expected the user to be asked (frontend/confirm) to confirm %q, the kernel never asked", tool)
	}
	if before == "" {
		return nil
	}
	for _, inv := range d.invokes(tool) {
		if !slices.ContainsFunc(asks, func(a calllog.Entry) bool { return a.Answered() && a.EndSeq < inv.Seq }) {
			return fmt.Errorf("expected %q to run only after the user confirmed it, invoke #%d came before any confirmation was answered", tool, inv.Seq)
		}
	}
	return nil
}

func (d *dfArea) notAnError() error {
	if err := d.s.mustHaveRun(); err != nil {
		return err
	}
	r := d.s.Result
	if r.Status == wire.StatusFailed || r.Error != "" {
		return fmt.Errorf("expected the cancelled run not to be reported as an error, the kernel reported status %q with error %q", r.Status, r.Error)
	}
	for _, ev := range d.s.World.Events() {
		if ev.SessionID == d.s.SessionID && (ev.Kind == wire.EventError || ev.Kind == wire.EventToolError || ev.Kind == wire.EventModelError) {
			return fmt.Errorf("expected the cancellation not to be reported as an error, the kernel sent an event of kind %q: %s", ev.Kind, plain.JSON(ev.Payload))
		}
	}
	return nil
}

func (d *dfArea) cancelTime() (time.Time, error) {
	at := d.s.World.DF.CancelledAt()
	if at.IsZero() {
		return at, errors.New("the harness never cancelled the session: the request it waits for never came")
	}
	return at, nil
}

// dfAbandoned: the request was given up by the kernel ($/cancelRequest)
// within ms of the cancel, and never answered normally. The kernel may end
// the session before its $/cancelRequest reaches the harness, so the check
// waits for the fake to let go until the bound has passed.
func (d *dfArea) dfAbandoned(what string, e calllog.Entry, at time.Time, ms int) error {
	bound := d.s.within(ms)
	for !e.Answered() && time.Now().Before(at.Add(bound)) {
		time.Sleep(5 * time.Millisecond)
		for _, x := range d.s.World.Log.Entries() {
			if x.Seq == e.Seq {
				e = x
			}
		}
	}
	switch {
	case !e.Answered():
		return fmt.Errorf("expected the kernel to abandon %s ($/cancelRequest) within %d ms of the cancel, it was still in flight after that", what, ms)
	case e.Err == "":
		return fmt.Errorf("expected the kernel to abandon %s once the session was cancelled, it waited for its answer", what)
	case e.End.Sub(at) > bound:
		return fmt.Errorf("expected the kernel to abandon %s within %d ms of the cancel, it took %v", what, ms, e.End.Sub(at).Round(time.Millisecond))
	}
	return nil
}

func (d *dfArea) abandonedModel(n, ms int) error {
	at, err := d.cancelTime()
	if err != nil {
		return err
	}
	e, err := d.nthModelEntry(n)
	if err != nil {
		return err
	}
	return d.dfAbandoned(fmt.Sprintf("model request %d", n), e, at, ms)
}

func (d *dfArea) abandonedCall(tool string, ms int) error {
	at, err := d.cancelTime()
	if err != nil {
		return err
	}
	ts := d.invokes(tool)
	if len(ts) == 0 {
		return fmt.Errorf("expected %q to be in flight when the session was cancelled, the kernel never invoked it", tool)
	}
	if err := d.dfAbandoned(fmt.Sprintf("the call to %q", tool), ts[0], at, ms); err != nil {
		return err
	}
	if d.s.World.DF.Cancelled(tool) == 0 {
		return fmt.Errorf("expected the running call to %q to see its cancellation while it waited, it never did", tool)
	}
	return nil
}

// endedAfterCancel: the first end row (session_meta with a final status)
// after the cancel arrived within ms of it.
func (d *dfArea) endedAfterCancel(ms int) error {
	at, err := d.cancelTime()
	if err != nil {
		return err
	}
	for _, e := range d.s.World.Log.Entries() {
		m, ok := e.Value.(wire.SessionMeta)
		if !ok || e.SessionID != d.s.SessionID || m.Status == wire.StatusRunning || e.Start.Before(at) {
			continue
		}
		if took := e.Start.Sub(at); took > d.s.within(ms) {
			return fmt.Errorf("expected the run to end within %v of the cancel, its end row came after %v", d.s.within(ms), took.Round(time.Millisecond))
		}
		return nil
	}
	return errors.New("expected the run to end after the cancel, the kernel sent no end session_meta row")
}
