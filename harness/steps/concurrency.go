package steps

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// Turn-level tool-call concurrency (TA-14, TA-15, TA-16, TA-28, TA-29,
// TA-30, PA-07).
//
// Overlap is proven with a fakes.Barrier: every call waits until N have
// started, so a kernel that runs them one after another never opens it and
// the check fails once the barrier's timeout has passed; a kernel that
// overlaps them opens it the moment the N-th call starts. Non-overlap is
// proven from the recorded order (calllog Seq/EndSeq): each call is held
// for a grace window before it is answered, and no later call may start
// before an earlier one was answered. The hold gives a wrong kernel the
// chance to show the overlap; it orders nothing, so it cannot make a
// correct kernel fail.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		c := &concurrency{s: s}
		sc.Step(stepRE(`^calls to (.+) wait until (\d+) of them have started, for at most (\d+(?:\.\d+)?) seconds?$`), c.setBarrier)
		sc.Step(stepRE(`^every call to (.+) is held for (\d+) ms before it is answered$`), c.hold)
		sc.Step(stepRE(`^the model does not support parallel tool calls$`), c.noParallel)

		sc.Step(stepRE(`^(\d+) calls were in flight at the same time$`), s.proves(c.barrierOpened, "TA-14", "TA-16"))
		sc.Step(stepRE(`^the calls to ("[^"]+"(?:(?:, | and | or )"[^"]+")*) ran one at a time$`), s.proves(c.oneAtATime, "PA-07", "TA-15", "TA-16", "TA-28", "TA-29", "TA-30"))
		sc.Step(stepRE(`^the calls to "([^"]+)" with (\w+) "([^"]*)" ran one at a time$`), s.proves(c.oneAtATimeWith, "TA-16"))
		sc.Step(stepRE(`^the calls to "([^"]+)" ran as the kernel reads undeclared data_source operations$`), s.proves(c.undeclaredReads, "TA-29"))
		sc.Step(stepRE(`^the reads, the interactive calls and the resource calls of turn (\d+) ran as separate groups in that order$`), s.proves(c.groupsInOrder, "TA-01"))
		sc.Step(stepRE(`^the tool "([^"]+)" was invoked (\d+) times?$`), s.proves(func(tool string, n int) error {
			return s.invokedTimes(s.SessionID, tool, n)
		}, "DF-01", "DF-03", "DF-05", "DF-09", "DF-10", "ER-11", "PA-01", "PA-02", "PA-04", "PA-10", "PA-12", "PA-16", "PA-18", "PA-19", "TA-15", "TA-16", "TA-26", "TA-27", "TA-29", "TA-30"))
		sc.Step(stepRE(`^the tool "([^"]+)" was never invoked$`), s.proves(func(tool string) error {
			return s.invokedTimes(s.SessionID, tool, 0)
		}, "DF-03", "DF-04", "DF-05", "PA-01", "PA-02", "PA-03", "PA-06", "PA-08"))
		sc.Step(stepRE(`^the frontend received (\d+) interactive requests? for "([^"]+)"$`), s.proves(c.interactiveCount, "ER-11", "PA-07", "PA-10", "TA-28"))
	})
}

type concurrency struct {
	s       *Scenario
	barrier *fakes.Barrier
	tools   []string // the tools at the barrier
}

func (c *concurrency) setBarrier(list string, n int, secs string) error {
	tools := quotedList(list)
	if len(tools) == 0 {
		return fmt.Errorf("no tool named in %q", list)
	}
	d, err := strconv.ParseFloat(secs, 64)
	if err != nil {
		return err
	}
	c.barrier = fakes.NewBarrier(n, c.s.env.Scale(time.Duration(d*float64(time.Second))))
	c.tools = tools
	for _, t := range tools {
		c.s.World.Tools.Update(t, func(b *fakes.ToolBehavior) { b.Barrier = c.barrier })
	}
	return nil
}

// hold keeps every call of the listed tools in flight for the grace
// window: invokes for data_source and resource tools, the frontend's answer
// for interactive ones.
func (c *concurrency) hold(list string, ms int) error {
	tools := quotedList(list)
	if len(tools) == 0 {
		return fmt.Errorf("no tool named in %q", list)
	}
	d := c.s.env.Scale(time.Duration(ms) * time.Millisecond)
	for _, t := range tools {
		if c.s.kindOf(t) == wire.KindInteractive {
			c.s.World.Frontend.SetInteractive(t, fakes.Interactive{Hold: d})
			// A kernel that carries an interactive call out as a
			// tool/invoke (a coding agent through the bridge, which
			// offers every tool over MCP) is held there too: answered at
			// once, its calls could not show whether they overlap, and
			// "ran one at a time" would pass on nothing.
		}
		c.s.World.Tools.Update(t, func(b *fakes.ToolBehavior) { b.Hold = d })
	}
	return nil
}

func (c *concurrency) noParallel() error {
	c.s.Cfg.Model.SupportsParallelToolCalls = false
	return nil
}

// kindOf is the declared kind of a tool, empty if undeclared.
func (s *Scenario) kindOf(tool string) string {
	for _, t := range s.Cfg.Tools {
		if t.Name == tool {
			return t.Kind
		}
	}
	return ""
}

func (c *concurrency) barrierOpened(n int) error {
	if err := c.s.mustHaveRun(); err != nil {
		return err
	}
	if c.barrier == nil {
		return scenarioDefect("the scenario set no barrier (add \"calls to ... wait until N of them have started\")")
	}
	if c.barrier.N != n {
		return fmt.Errorf("the barrier waits for %d calls, the step expects %d", c.barrier.N, n)
	}
	if !c.barrier.Opened() {
		return fmt.Errorf("expected %d calls to %s to be in flight at the same time; only %d had started when the barrier's %v timeout passed (%d started in all), so the kernel ran them one after another",
			n, strings.Join(c.tools, ", "), c.barrier.ArrivedInTime(), c.barrier.Timeout, c.barrier.Arrived())
	}
	return nil
}

// callEntries are the root session's invokes and interactive requests of
// the named tools, in arrival order.
func (s *Scenario) callEntries(tools []string, match func(input map[string]any) bool) []calllog.Entry {
	var out []calllog.Entry
	for _, e := range s.requests() {
		var name string
		var in []byte
		switch v := e.Value.(type) {
		case wire.ToolInvokeParams:
			name, in = v.Tool, v.Input
		case wire.InteractiveParams:
			name, in = v.ToolName, v.Input
		default:
			continue
		}
		if !slices.Contains(tools, name) {
			continue
		}
		if match != nil && !match(decodeObject(in)) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// noOverlap checks from the recorded order that each call started only
// after every earlier one had been answered.
func noOverlap(what string, es []calllog.Entry) error {
	if len(es) < 2 {
		return fmt.Errorf("expected at least 2 calls to %s, the kernel made %d", what, len(es))
	}
	for j := 1; j < len(es); j++ {
		for i := range j {
			if !es[i].Answered() || es[j].Seq < es[i].EndSeq {
				return fmt.Errorf("expected the calls to %s to run one at a time; %q (#%d) started while %q (#%d) was still in flight (it was held %s before being answered)",
					what, es[j].Label, es[j].Seq, es[i].Label, es[i].Seq, holdText(es[i]))
			}
		}
	}
	return nil
}

func holdText(e calllog.Entry) string {
	if !e.Answered() {
		return "and never"
	}
	return fmt.Sprintf("until #%d", e.EndSeq)
}

func (c *concurrency) oneAtATime(list string) error {
	if err := c.s.mustHaveRun(); err != nil {
		return err
	}
	tools := quotedList(list)
	return noOverlap(strings.Join(tools, ", "), c.s.callEntries(tools, nil))
}

func (c *concurrency) oneAtATimeWith(tool, field, value string) error {
	if err := c.s.mustHaveRun(); err != nil {
		return err
	}
	es := c.s.callEntries([]string{tool}, func(in map[string]any) bool { return in[field] == value })
	return noOverlap(fmt.Sprintf("%s with %s %q", tool, field, value), es)
}

// groupsInOrder is A-16: reads (step 9), then interactive calls (9b), then
// the plan (permission requests, plan-ready) and resource applies (12),
// each group over before the next begins.
func (c *concurrency) groupsInOrder(nth string) error {
	if err := c.s.mustHaveRun(); err != nil {
		return err
	}
	n, err := ordinal(nth)
	if err != nil {
		return err
	}
	ts := c.s.turns()
	if n < 1 || n >= len(ts) {
		return fmt.Errorf("expected a turn %d, the kernel ran %d turns", n, len(ts)-1)
	}
	var reads, inter, plan []calllog.Entry
	for _, e := range ts[n] {
		switch v := e.Value.(type) {
		case wire.ToolInvokeParams:
			switch c.s.kindOf(v.Tool) {
			case wire.KindDataSource:
				reads = append(reads, e)
			case wire.KindResource:
				plan = append(plan, e)
			}
		case wire.InteractiveParams:
			inter = append(inter, e)
		case wire.PermissionParams:
			plan = append(plan, e)
		case wire.HookDispatchParams:
			if v.Point == wire.PointPlanReady {
				plan = append(plan, e)
			}
		}
	}
	for _, g := range []struct {
		name string
		es   []calllog.Entry
	}{{"read invokes", reads}, {"interactive requests", inter}, {"resource invokes", plan}} {
		if len(g.es) == 0 {
			return fmt.Errorf("expected %s in turn %d, the kernel sent none", g.name, n)
		}
	}
	if err := before("every read", reads, "the first interactive call or resource step", append(slices.Clone(inter), plan...)); err != nil {
		return err
	}
	return before("every interactive call", inter, "the first permission request, plan-ready dispatch or resource invoke", plan)
}

// before checks that every entry of a ended before any entry of b started.
func before(aName string, a []calllog.Entry, bName string, b []calllog.Entry) error {
	first := slices.MinFunc(b, func(x, y calllog.Entry) int { return x.Seq - y.Seq })
	for _, e := range a {
		if !e.Answered() || e.EndSeq > first.Seq {
			return fmt.Errorf("expected %s to be over before %s; %q (#%d) was still in flight when %q (#%d) started",
				aName, bName, e.Label, e.Seq, first.Label, first.Seq)
		}
	}
	return nil
}

// invokedTimes counts one session's invokes of a tool.
func (s *Scenario) invokedTimes(session, tool string, n int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	var seqs []string
	for _, e := range s.World.Log.Entries() {
		if v, ok := e.Value.(wire.ToolInvokeParams); ok && e.SessionID == session && v.Tool == tool {
			seqs = append(seqs, fmt.Sprintf("#%d %s", e.Seq, compact(v.Input)))
		}
	}
	if len(seqs) != n {
		got := "none"
		if len(seqs) > 0 {
			got = strings.Join(seqs, ", ")
		}
		return fmt.Errorf("expected %d invokes of %q in session %s, the kernel sent %d: %s", n, tool, session, len(seqs), got)
	}
	return nil
}

// interactiveCount counts the frontend/interactive requests for tool: an
// interactive call is carried out by the frontend (A-16 step 9b), so a
// tool/invoke of it is not one, as TA-19's "calls carried out" reads it.
func (c *concurrency) interactiveCount(n int, tool string) error {
	if err := c.s.mustHaveRun(); err != nil {
		return err
	}
	if c.s.kindOf(tool) != wire.KindInteractive {
		return scenarioDefect("%q is not an interactive tool of the scenario", tool)
	}
	got, invoked := 0, 0
	for _, e := range c.s.callEntries([]string{tool}, nil) {
		if e.Method == wire.MethodFrontendInteractive {
			got++
		} else {
			invoked++
		}
	}
	if got == 0 && invoked > 0 {
		// The frontend never got what this check judges (a failure it
		// answered, an order of its requests): that routing is PA-15's
		// failure, not this check's.
		return notReached("the kernel carried out its %d call(s) to the interactive tool %q as tool/invoke, never asking the frontend (PA-15 judges that), so what this check judges of interactive calls never happened", invoked, tool)
	}
	if got != n {
		msg := fmt.Sprintf("expected %d interactive requests for %q, the kernel sent %d", n, tool, got)
		if invoked > 0 {
			msg += fmt.Sprintf(" (and %d tool/invoke of it, which is not how an interactive call is carried out)", invoked)
		}
		return errors.New(msg)
	}
	return nil
}

// readingUndeclaredReads is the reading of A-15: how a kernel schedules
// data_source operations that declare no ConcurrencySpec.
const readingUndeclaredReads = "concurrency.undeclared_data_source"

// undeclaredReads is A-15. The data-types rule makes an undeclared read
// safe: false (sequential), the matrix row lets reads run concurrently with
// no declaration; the digest only records what the kernel does. A kernel
// that declares its reading is held to it; without a declaration the
// behaviour is recorded as an observation and the check is not reached.
// The scenario sets a barrier for both calls: a concurrent kernel opens it,
// a sequential one keeps the first call waiting until the barrier's timeout,
// the window in which an overlap would show.
func (c *concurrency) undeclaredReads(tool string) error {
	if err := c.s.mustHaveRun(); err != nil {
		return err
	}
	es := c.s.callEntries([]string{tool}, nil)
	if len(es) < 2 {
		return notReached("expected 2 calls to %s, the kernel made %d", tool, len(es))
	}
	overlapped := es[1].Seq < es[0].EndSeq || !es[0].Answered()
	what := "one after the other"
	if overlapped {
		what = "at the same time"
	}
	switch r := c.s.env.Info.Readings[readingUndeclaredReads]; r {
	case "sequential":
		return noOverlap(tool, es)
	case "concurrent":
		if c.barrier == nil {
			return scenarioDefect("the scenario set no barrier (add \"calls to ... wait until 2 of them have started\")")
		}
		if !c.barrier.Opened() {
			return fmt.Errorf("the kernel declares %s = concurrent, but its two undeclared reads of %q ran %s (the barrier's %v passed with %d of 2 started)", readingUndeclaredReads, tool, what, c.barrier.Timeout, c.barrier.ArrivedInTime())
		}
		return nil
	case "":
		c.s.observe("A-15", "two calls to the undeclared data_source %q of one provider ran %s (the kernel declares no %s)", tool, what, readingUndeclaredReads)
		return notReached("the kernel declares no reading %s; how it schedules undeclared reads is only recorded (A-15): they ran %s", readingUndeclaredReads, what)
	default:
		return fmt.Errorf("the kernel declares %s = %q; the allowed values are sequential and concurrent", readingUndeclaredReads, r)
	}
}
