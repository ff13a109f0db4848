package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// Bounds area: max_cost_usd (TA-03), max_wall_clock_s (TA-04), the shared
// limit-reached path (TA-19), soft limits (TA-09) and the hard default
// (TA-22). Cost, doom-loop and call-context steps are in cost.go,
// doomloop.go and callcontext.go; the fuzz invariants in invariants.go.

// limitsState is the area's share of a scenario.
type limitsState struct {
	mu     sync.Mutex
	kernel *driver.Kernel
	runAt  time.Time // just before session/run was sent

	// Soft limits: the continuation the user sends when the session pauses.
	continueWith  string
	continueAfter time.Duration
	pauses        []pause

	// The run's time limit (TA-22): past it the harness cancels the session.
	limited       bool
	watchdogFired bool
}

// pause is one soft-limit pause as the harness saw it.
type pause struct {
	eventSeq    int // the limit_reached event
	continueSeq int // the last log entry before session/continue was sent; 0 if never sent
	err         error
	// answered is closed when session/continue has been answered: the
	// kernel may resume, finish and answer session/run before that.
	answered chan struct{}
}

// softGrace is how long the harness waits before it continues a paused
// session: the window in which a kernel that did not really pause is seen
// calling the model. It orders nothing.
const softGrace = 150 * time.Millisecond

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		s.onRun = append(s.onRun, func(k *driver.Kernel) {
			s.limits.mu.Lock()
			defer s.limits.mu.Unlock()
			s.limits.kernel, s.limits.runAt = k, time.Now()
		})

		sc.Step(stepRE(`^the session has a cost bound of \$(\S+)$`), s.costBound)
		sc.Step(stepRE(`^the session has a wall-clock bound of (\S+) seconds?$`), s.wallClockBound)
		sc.Step(stepRE(`^the tool "([^"]+)" is held until (\S+) seconds after the session started$`), s.heldUntil)
		sc.Step(stepRE(`^soft limits are on$`), func() error { s.Cfg.Bounds.Soft = true; return nil })
		sc.Step(stepRE(`^when the session pauses, the user continues with "([^"]*)"$`), s.continueWith)
		sc.Step(stepRE(`^the session runs for at most (\d+(?:\.\d+)?) seconds$`), s.runLimited)

		sc.Step(stepRE(`^the session paused with a limit_reached event and the model got no request until the user continued$`), s.proves(s.pausedUntilContinued, "TA-09"))
		sc.Step(stepRE(`^model request (\d+) carried the user's continuation and offered tools$`), s.proves(s.requestCarriesContinuation, "TA-09"))
		sc.Step(stepRE(`^the session ended on its own$`), s.proves(s.endedOnItsOwn, "TA-22"))
		sc.Step(stepRE(`^a limit_reached event named the bound "([^"]+)" and was not soft$`), s.proves(s.hardLimitEvent, "TA-05"))
		sc.Step(stepRE(`^the session config sets no bound at all$`), func() error { s.Cfg.Bounds = wire.Bounds{}; return nil })
		sc.Step(stepRE(`^the kernel accepted the config without bounds and the session ended "completed" after (\d+) model requests$`), s.proves(s.unboundedCompleted, "TA-02"))
	})
}

func (s *Scenario) costBound(usd string) error {
	v, err := strconv.ParseFloat(usd, 64)
	if err != nil {
		return err
	}
	s.Cfg.Bounds.MaxCostUSD = &v
	return nil
}

func (s *Scenario) wallClockBound(secs string) error {
	v, err := strconv.ParseFloat(secs, 64)
	if err != nil {
		return err
	}
	v = s.env.Scale(time.Duration(v * float64(time.Second))).Seconds()
	s.Cfg.Bounds.MaxWallClockS = &v
	return nil
}

// heldUntil holds every call to the tool until the given time after the
// kernel's session clock has certainly started (clockmark.go): it gives a
// turn a known minimum length on the kernel's own clock, whenever that clock
// started. It orders nothing.
func (s *Scenario) heldUntil(tool, secs string) error {
	v, err := strconv.ParseFloat(secs, 64)
	if err != nil {
		return err
	}
	g := fakes.NewGate()
	s.World.Tools.Update(tool, func(b *fakes.ToolBehavior) { b.Gate = g })
	s.openAfterStart(g, s.env.Scale(time.Duration(v*float64(time.Second))))
	return nil
}

// continueWith answers a soft-limit pause: a while after the limit_reached
// event the harness sends session/continue with the user's message.
func (s *Scenario) continueWith(msg string) error {
	s.limits.continueWith, s.limits.continueAfter = msg, s.env.Scale(softGrace)
	s.World.OnEvent = func(ev wire.Event) {
		if ev.SessionID != s.SessionID || ev.Kind != wire.EventLimitReached || ev.Payload["soft"] != true {
			return
		}
		seq := lastSeq(s.World.Log.Entries(), func(e calllog.Entry) bool {
			return e.Method == wire.NotifyEvent && e.Label == "event "+wire.EventLimitReached
		})
		s.limits.mu.Lock()
		i := len(s.limits.pauses)
		s.limits.pauses = append(s.limits.pauses, pause{eventSeq: seq, answered: make(chan struct{})})
		k := s.limits.kernel
		s.limits.mu.Unlock()
		time.AfterFunc(s.limits.continueAfter, func() {
			// Mark the moment before sending: everything the kernel sends
			// after it may legitimately follow the continuation.
			at := lastSeq(s.World.Log.Entries(), func(calllog.Entry) bool { return true })
			s.limits.mu.Lock()
			s.limits.pauses[i].continueSeq = at
			answered := s.limits.pauses[i].answered
			s.limits.mu.Unlock()
			defer close(answered)
			ctx, cancel := context.WithTimeout(context.Background(), s.env.Scale(5*time.Second))
			defer cancel()
			var err error
			if k == nil {
				err = fmt.Errorf("no kernel to continue")
			} else {
				err = k.Continue(ctx, s.SessionID, msg)
			}
			s.limits.mu.Lock()
			s.limits.pauses[i].err = err
			s.limits.mu.Unlock()
		})
	}
	return nil
}

// lastSeq is the highest sequence number (arrival or answer) of the matching
// entries.
func lastSeq(es []calllog.Entry, match func(calllog.Entry) bool) int {
	seq := 0
	for _, e := range es {
		if !match(e) {
			continue
		}
		seq = max(seq, e.Seq, e.EndSeq)
	}
	return seq
}

// runLimited runs the session, and cancels it if it is still running after
// the limit: a kernel that waits for input nobody will give gets a failing
// check instead of hanging the scenario.
func (s *Scenario) runLimited(ctx context.Context, secs string) error {
	v, err := strconv.ParseFloat(secs, 64)
	if err != nil {
		return err
	}
	s.limits.limited = true
	// The limit is the kernel's time, not the machine's: what the kernel
	// and the harness spent waiting for a CPU does not count, so a busy
	// machine never turns a session that ends on its own into one the
	// watchdog cancelled (TA-22's failure).
	stop := func() bool { return false }
	s.onRun = append(s.onRun, func(k *driver.Kernel) {
		stop = driver.AfterCharged(s.env.Scale(time.Duration(v*float64(time.Second))), k.WatchdogWait, func() {
			s.limits.mu.Lock()
			s.limits.watchdogFired = true
			s.limits.mu.Unlock()
			cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = k.Cancel(cctx, s.SessionID)
		})
	})
	defer func() { stop() }()
	return s.run(ctx)
}

// TA-19: the calls of the turn in which a bound fired still ran, and their
// results were back before the final-answer request. An interactive call
// is carried out by the frontend (as the interactive-request count reads
// it, concurrency.go), or, by a kernel that routes it wrongly, by a
// tool/invoke, which still shows whether it ran in time.
func (s *Scenario) callsCarriedOut(nth, beforeNth string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	n, _ := ordinal(nth)
	m, _ := ordinal(beforeNth)
	reqs := s.modelEntries()
	if n < 1 || n > len(reqs) || m < 1 || m > len(reqs) {
		return fmt.Errorf("expected model requests %d and %d, the kernel sent %d", n, m, len(reqs))
	}
	before := reqs[m-1].Seq
	for _, c := range replyCalls(reqs[n-1]) {
		kind := s.toolKind(c.Name)
		method := wire.MethodToolInvoke
		if kind == wire.KindInteractive {
			method = wire.MethodFrontendInteractive
		}
		var found *calllog.Entry
		for _, e := range s.requests() {
			if e.Method == method && callIDOf(e) == c.ID {
				e := e
				found = &e
				break
			}
		}
		if e, ok := s.invokedCall(c.ID); found == nil && ok && method == wire.MethodFrontendInteractive {
			// Carried out as a tool/invoke, never asking the frontend:
			// that routing is PA-15's failure; whether the call ran to its
			// end before the final-answer request is still this check's.
			found = &e
		}
		switch {
		case found == nil:
			return fmt.Errorf("the call %s to %q of model request %d was never carried out (no %s with that call_id)", c.ID, c.Name, n, method)
		case !found.Answered() || found.EndSeq > before:
			return fmt.Errorf("the call %s to %q (#%d) had not finished when model request %d (#%d) was sent", c.ID, c.Name, found.Seq, m, before)
		}
	}
	return nil
}

// TA-04: the lower bound of a wall-clock check, measured from the earliest
// moment the kernel's clock can have started (clockmark.go).
func (s *Scenario) requestNotBefore(nth, secs string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	v, err := strconv.ParseFloat(secs, 64)
	if err != nil {
		return err
	}
	n, _ := ordinal(nth)
	reqs := s.modelEntries()
	if n < 1 || n > len(reqs) {
		return notReached("there is no model request %d: the kernel sent %d", n, len(reqs))
	}
	want := s.env.Scale(time.Duration(v * float64(time.Second)))
	if got := reqs[n-1].Start.Sub(s.clockStartedAfter()); got < want {
		return fmt.Errorf("expected model request %d no earlier than %v after the session started, it came after %v", n, want, got.Round(time.Millisecond))
	}
	return nil
}

// TA-09: the kernel reported the pause and called the model no more until
// the user's continuation was sent.
func (s *Scenario) pausedUntilContinued() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	s.limits.mu.Lock()
	var answered chan struct{}
	if len(s.limits.pauses) > 0 {
		answered = s.limits.pauses[0].answered
	}
	s.limits.mu.Unlock()
	if answered != nil {
		// The continuation may still be in flight when session/run has
		// been answered; wait (boundedly) for its own answer.
		select {
		case <-answered:
		case <-time.After(s.env.Scale(6 * time.Second)):
		}
	}
	s.limits.mu.Lock()
	pauses := append([]pause(nil), s.limits.pauses...)
	s.limits.mu.Unlock()
	if len(pauses) == 0 {
		return fmt.Errorf("expected the session to pause with a limit_reached event whose payload says soft: true; the kernel sent none (status %q)", s.Result.Status)
	}
	p := pauses[0]
	if p.continueSeq == 0 {
		return fmt.Errorf("the session ended before the harness could continue it (status %q)", s.Result.Status)
	}
	if p.err != nil {
		return fmt.Errorf("session/continue for the paused session failed: %v", p.err)
	}
	for _, e := range s.modelEntries() {
		if e.Seq > p.eventSeq && e.Seq <= p.continueSeq {
			return fmt.Errorf("the kernel sent model request #%d after it reported the pause (#%d) and before the user continued (after #%d)", e.Seq, p.eventSeq, p.continueSeq)
		}
	}
	return nil
}

// TA-09: the turns resume with the user's message in the conversation.
func (s *Scenario) requestCarriesContinuation(nth string) error {
	r, err := s.modelRequest(nth)
	if err != nil {
		return err
	}
	if len(r.Tools) == 0 {
		return fmt.Errorf("expected model request %s to be an ordinary turn offering tools, it offered none", nth)
	}
	for _, m := range r.Messages {
		for _, c := range m.Content {
			if m.Role == "user" && c.Type == wire.BlockText && c.Text == s.limits.continueWith {
				return nil
			}
		}
	}
	return fmt.Errorf("expected model request %s to carry the user's continuation %q as a user message; it does not", nth, s.limits.continueWith)
}

// TA-22: no input was needed for the session to end.
func (s *Scenario) endedOnItsOwn() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	s.limits.mu.Lock()
	fired := s.limits.watchdogFired
	s.limits.mu.Unlock()
	if !s.limits.limited {
		return scenarioDefect("step needs \"When the session runs for at most N seconds\"")
	}
	if b := s.Cfg.Bounds.MaxTurns; fired && b != nil && s.limitPath().ordinary() < *b && !s.tookLimitPath() {
		// A slow kernel that had not reached its bound when the time limit
		// passed was not waiting for input: it was still working (Cline's
		// first request came 14 s into a 30 s limit, median, in a whole run).
		return notReached("the harness's time limit passed after %s, before the kernel reached its bound of %d turns, so whether a reached bound ends the session without input was not exercised (a slow kernel: --timeout-multiplier)", plain.Count(s.limitPath().ordinary(), "ordinary turn"), *b)
	}
	if fired {
		return fmt.Errorf("the session had not ended on its own when the harness's time limit passed (it was waiting, with nobody to answer); the harness cancelled it and it ended %q", s.Result.Status)
	}
	if s.Result.Status == wire.StatusRunning || s.Result.Status == wire.StatusCancelled {
		return fmt.Errorf("expected the session to end on its own, it ended %q", s.Result.Status)
	}
	// The subject is a bound that was reached: a kernel that ignores
	// max_turns (TA-02's failure) or ends before it never shows whether a
	// reached bound needs input.
	if !s.tookLimitPath() {
		return notReached("the kernel never took the limit path (it asked the model %d times and the session ended %q), so whether a reached bound ends the session without input was not exercised", len(s.modelRequests()), s.Result.Status)
	}
	for _, ev := range s.World.Events() {
		if ev.SessionID == s.SessionID && ev.Kind == wire.EventLimitReached && ev.Payload["soft"] == true {
			return fmt.Errorf("with no soft option configured the kernel still paused (a limit_reached event with soft: true) before it ended %q; the default must be hard termination", s.Result.Status)
		}
	}
	return nil
}

// TA-05: the fired weighted-token budget is reported as the cost bound, in
// the limit_reached event the kernel sends on the limit path (PROTOCOL.md
// §13: "The kernel also sends an event of kind limit_reached"; the step
// names the payload keys it relies on, §8.4). A kernel that took the limit
// path and sent no such event fails (issue 12: the step used to pass then);
// the scenarios using this step are gated on cost.weighted_tokens.
func (s *Scenario) hardLimitEvent(bound string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if !s.tookLimitPath() {
		return notReached("the kernel never took the limit path (it asked the model %d times and the session ended %q)", len(s.modelRequests()), s.Result.Status)
	}
	var seen []string
	for _, ev := range s.World.Events() {
		if ev.SessionID != s.SessionID || ev.Kind != wire.EventLimitReached {
			continue
		}
		if ev.Payload["bound"] == bound && ev.Payload["soft"] != true {
			return nil
		}
		seen = append(seen, fmt.Sprintf("bound %s soft %s", plain.JSON(ev.Payload["bound"]), plain.JSON(ev.Payload["soft"])))
	}
	if len(seen) == 0 {
		return fmt.Errorf("the bound fired (the session ended %q through the limit path) but the kernel sent no limit_reached event naming it", s.Result.Status)
	}
	return fmt.Errorf("expected a limit_reached event with bound %q and soft false or absent; the kernel sent %s", bound, plain.And(seen))
}

// TA-02: every bound is optional and an absent bound is unbounded
// (defs.json Bounds): a config that sets none is accepted and the session
// runs until the model is done. The model's script is shorter than any
// framework's own default cap.
func (s *Scenario) unboundedCompleted(n int) error {
	if err := s.mustHaveStarted(); err != nil {
		return err
	}
	if s.Rejected != nil {
		return fmt.Errorf("the kernel refused a session config that sets no bound (%v); every bound is optional and an absent one is unbounded", s.Rejected.Message)
	}
	if got := len(s.turnEntries()); got != n || s.Result.Status != wire.StatusCompleted {
		return fmt.Errorf("expected the unbounded session to end \"completed\" after the model's %d scripted requests; it made %d and ended %q", n, got, s.Result.Status)
	}
	return nil
}

// replyCalls are the tool_call events of a recorded model/stream answer.
func replyCalls(e calllog.Entry) []wire.StreamEvent {
	var r wire.ModelStreamResult
	_ = json.Unmarshal(e.Result, &r)
	var out []wire.StreamEvent
	for _, ev := range r.Events {
		if ev.Type == wire.EventToolCall {
			out = append(out, ev)
		}
	}
	return out
}

// replyUsages are the usage events of a recorded model/stream answer.
func replyUsages(e calllog.Entry) []wire.Usage {
	var r wire.ModelStreamResult
	_ = json.Unmarshal(e.Result, &r)
	var out []wire.Usage
	for _, ev := range r.Events {
		if ev.Type == wire.EventUsage && ev.Usage != nil {
			out = append(out, *ev.Usage)
		}
	}
	return out
}

func callIDOf(e calllog.Entry) string {
	switch p := e.Value.(type) {
	case wire.ToolInvokeParams:
		return p.CallID
	case wire.InteractiveParams:
		return p.CallID
	}
	return ""
}

// toolKind is the declared kind of a tool, empty for an undeclared one.
func (s *Scenario) toolKind(name string) string {
	for _, t := range s.Cfg.Tools {
		if t.Name == name {
			return t.Kind
		}
	}
	return ""
}
