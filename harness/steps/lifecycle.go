package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

// The kernel's lifecycle beyond one session's loop: what it answers to
// session/cancel (PROTOCOL.md §6.3) and to a method it does not define
// (§2), how it shuts down with sessions still running (§5 item 6, §6.6),
// and that it exits after shutdown and at the end of its input (§2 "End
// of the connection").
//
// A wrong answer or a kernel that stays is a protocol failure, not a
// requirement's: the probes below make the scenario's verdict `error`
// (driver.Fault) with what the kernel did, as a broken message does. What
// a shut-down session must still do (session-end once, its end row, with
// status cancelled) is TA-18's, and is checked as such.

// Bounds of the probes: generous multiples of what a kernel needs (a
// cancelled session runs session-end and sends one row).
const (
	lcShutdownAnswer = 10 * time.Second // shutdown with running sessions, until answered
	lcExit           = 5 * time.Second  // after the shutdown answer or the end of input, until the kernel stopped
	lcProbe          = 5 * time.Second  // any other probe's answer
)

// heldAnswer is the kernel's answer to one probe.
type heldAnswer struct {
	raw json.RawMessage
	err error
}

// lcState is the lifecycle area's part of a scenario.
type lcState struct {
	mu        sync.Mutex
	cancelErr error // the answer to the cancel of the running session
	// held answers the probes sent while the session's model request is
	// held, by method: session/spawn from the running session for a call
	// not in flight, a second session/run naming it, session/continue of
	// it (nothing paused it), in that order, just before that cancel.
	held      map[string]heldAnswer
	cancelled chan struct{} // closed once that cancel has its answer; nil until sent

	// Shutdown with sessions running.
	sessions   []string
	results    []wire.RunSessionResult
	runErrs    []error
	shutErr    error
	endedAtAns []string // sessions with an end row when shutdown was answered
	exited     bool
	exitErr    error
}

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		lc := &lcState{}
		// Setup and runs.
		sc.Step(stepRE(`^the model hangs on request (\d+) while the harness cancels the session, noting the answer$`), func(n int) error {
			return s.lcHangAndCancel(lc, n)
		})
		sc.Step(stepRE(`^the model hangs on request (\d+)$`), func(n int) error {
			s.World.Model.On(n, fakes.Reply{Hang: true})
			return nil
		})
		sc.Step(stepRE(`^(\d+) sessions? runs? on one kernel until the harness (shuts it down|closes its input) while each waits (?:in a model call|on the hook subscriber "([^"]+)")$`), func(ctx context.Context, n int, how, hook string) error {
			return s.lcEndWhileRunning(ctx, lc, n, how == "closes its input", hook)
		})

		// Checks (TA-18).
		sc.Step(stepRE(`^each session fired "session-start" and "session-end" once, and its session-end and end row carry "([^"]+)"$`), s.proves(func(status string) error {
			return s.lcEachEnded(lc, status)
		}, "TA-18"))

		// Protocol probes: a failure is the kernel's protocol error.
		sc.Step(stepRE(`^the kernel answered the cancel of the running session with \{\}$`), func() error { return s.lcCancelAnswered(lc) })
		sc.Step(stepRE(`^the kernel answered session/continue of the running session, which nothing paused, with (-\d+)$`), func(code int) error {
			return s.lcContinueAnswered(lc, code)
		})
		sc.Step(stepRE(`^the kernel answered a second session/run naming the running session with (-\d+)$`), func(code int) error {
			return s.lcHeldAnswer(lc, wire.MethodSessionRun,
				fmt.Sprintf("a second session/run naming the running session %s", s.SessionID), "§17.8", code)
		})
		sc.Step(stepRE(`^the kernel answered session/spawn from the running session for a call not in flight with (-\d+), or (-\d+) if it serves no session/spawn$`), func(code, none int) error {
			// §6.4 refuses the call_id; a kernel without sub-agents may
			// refuse the method (§2); -32603 is neither.
			return s.lcHeldAnswer(lc, wire.MethodSessionSpawn,
				fmt.Sprintf("session/spawn from the running session %s for a call_id that is no tool/invoke in flight", s.SessionID), "§6.4, §2", code, none)
		})
		sc.Step(stepRE(`^the kernel answers session/cancel of the ended session with \{\}$`), func(ctx context.Context) error {
			return s.lcCancel(ctx, []string{s.SessionID}, 0)
		})
		sc.Step(stepRE(`^the kernel answers session/cancel of every ended session of the tree with \{\}$`), func(ctx context.Context) error {
			return s.lcCancel(ctx, s.saSettled().members(), 0)
		})
		sc.Step(stepRE(`^the kernel answers session/cancel of a session id it never ran with (-\d+)$`), func(ctx context.Context, code int) error {
			return s.lcCancel(ctx, []string{s.SessionID + "-never-run"}, code)
		})
		sc.Step(stepRE(`^the kernel answers a request for the undefined method "([^"]+)" with (-\d+)$`), s.lcUnknownMethod)
		sc.Step(stepRE(`^the kernel answered shutdown only after every session's end row, and answered every session/run$`), func() error { return s.lcShutdownOrder(lc) })
		sc.Step(stepRE(`^the kernel then exited with status 0 within (\d+) seconds?, its input still open$`), func() error { return s.lcExitedAfterShutdown(lc) })
		sc.Step(stepRE(`^the kernel exits within (\d+) seconds? once its input ends$`), s.lcExitAtEOF)
		sc.Step(stepRE(`^the kernel exited within (\d+) seconds? of the end of its input$`), func() error { return s.lcExitedAtEOF(lc) })
	})
}

// protocolFault makes the scenario's verdict error: the kernel broke the
// protocol.
func (s *Scenario) protocolFault(format string, args ...any) error {
	f := &driver.Fault{What: fmt.Sprintf(format, args...)}
	s.Fault = f
	return f
}

func (s *Scenario) lcHangAndCancel(lc *lcState, n int) error {
	return s.hangThen(n, func(k *driver.Kernel, cc wire.CallContext) {
		done := make(chan struct{})
		lc.mu.Lock()
		lc.cancelled = done
		lc.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), s.env.Scale(lcProbe))
		defer cancel()
		session := cc.SessionID
		held := map[string]heldAnswer{}
		for _, p := range []struct {
			method string
			params any
		}{
			{wire.MethodSessionSpawn, wire.SpawnParams{ParentSessionID: session, CallID: "conform-no-such-call", Profile: "conform-no-such-profile", Prompt: "Spawn nothing."}},
			{wire.MethodSessionRun, wire.RunParams{SessionID: session, Prompt: "Once more.", Config: s.Cfg}},
			{wire.MethodSessionContinue, wire.ContinueParams{SessionID: session, Message: "go on"}},
		} {
			raw, err := k.Request(ctx, p.method, p.params)
			held[p.method] = heldAnswer{raw, err}
		}
		err := k.Cancel(ctx, session)
		lc.mu.Lock()
		lc.held = held
		lc.cancelErr = err
		lc.mu.Unlock()
		close(done)
	})
}

// rpcCode is the JSON-RPC error code of err, or 0.
func rpcCode(err error) int {
	var rerr *jsonrpc.Error
	if errors.As(err, &rerr) {
		return rerr.Code
	}
	return 0
}

func (s *Scenario) lcKernel() (*driver.Kernel, error) {
	if err := s.mustHaveRun(); err != nil {
		return nil, err
	}
	if s.kernel == nil {
		return nil, errors.New("step needs the scenario's kernel, which is gone")
	}
	return s.kernel, nil
}

// lcHeldAnswers waits for the answers to the probes sent while the session
// was held in its model call.
func (s *Scenario) lcHeldAnswers(lc *lcState) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	lc.mu.Lock()
	done := lc.cancelled
	lc.mu.Unlock()
	if done == nil {
		return errors.New("the session never reached the held model request, so the harness never cancelled it")
	}
	<-done // the calls have their own deadline (lcProbe)
	return nil
}

func (s *Scenario) lcContinueAnswered(lc *lcState, code int) error {
	return s.lcHeldAnswer(lc, wire.MethodSessionContinue,
		fmt.Sprintf("session/continue of the running session %s, which nothing paused,", s.SessionID), "§6.5", code)
}

// lcHeldAnswer judges the answer the kernel gave to the probe of method
// while the session's model request was held against the codes wanted.
func (s *Scenario) lcHeldAnswer(lc *lcState, method, what, section string, codes ...int) error {
	if err := s.lcHeldAnswers(lc); err != nil {
		return err
	}
	lc.mu.Lock()
	a := lc.held[method]
	lc.mu.Unlock()
	return s.wantError(what, section, a.raw, a.err, codes...)
}

func (s *Scenario) lcCancelAnswered(lc *lcState) error {
	if err := s.lcHeldAnswers(lc); err != nil {
		return err
	}
	lc.mu.Lock()
	err := lc.cancelErr
	lc.mu.Unlock()
	switch {
	case err != nil:
		return s.protocolFault("session/cancel of the running session %s was answered with %v; PROTOCOL.md §6.3: {}", s.SessionID, err)
	}
	return nil
}

// lcCancel cancels each session and wants code (0: the answer {}).
func (s *Scenario) lcCancel(ctx context.Context, ids []string, code int) error {
	k, err := s.lcKernel()
	if err != nil {
		return err
	}
	for _, id := range ids {
		cctx, cancel := context.WithTimeout(ctx, s.env.Scale(lcProbe))
		err := k.Cancel(cctx, id)
		cancel()
		switch {
		case code == 0 && err != nil:
			return s.protocolFault("session/cancel of session %q, which has ended, was answered with %v; PROTOCOL.md §6.3: {}", id, err)
		case code != 0 && err == nil:
			return s.protocolFault("session/cancel of session %q, which the kernel never ran, was answered {}; PROTOCOL.md §6.3: error %d", id, code)
		case code != 0 && rpcCode(err) != code:
			return s.protocolFault("session/cancel of session %q, which the kernel never ran, was answered with %v; PROTOCOL.md §6.3: error %d", id, err, code)
		}
	}
	return nil
}

func (s *Scenario) lcUnknownMethod(ctx context.Context, method string, code int) error {
	k, err := s.lcKernel()
	if err != nil {
		return err
	}
	if slices.Contains(wire.Methods(), method) {
		return scenarioDefect("the scenario names %q, which the protocol defines", method)
	}
	cctx, cancel := context.WithTimeout(ctx, s.env.Scale(lcProbe))
	defer cancel()
	raw, err := k.Request(cctx, method, map[string]any{"session_id": s.SessionID})
	return s.wantError(fmt.Sprintf("a request for %q, a method this protocol does not define,", method), "§2", raw, err, code)
}

// lcExitAtEOF closes the kernel's input and waits for it to stop.
func (s *Scenario) lcExitAtEOF(secs int) error {
	k, err := s.lcKernel()
	if err != nil {
		return err
	}
	_ = k.CloseInput()
	// Only that it stops is judged: §2 gives the end of input no status.
	exited, _ := k.AwaitExit(s.env.Scale(time.Duration(secs) * time.Second))
	// The kernel is not reused: the scenario lets it go here rather than
	// in release, so that one that stays is stopped without waiting on it.
	if s.stderrMark >= 0 {
		s.Stderr, s.StderrLost = k.StderrSince(s.stderrMark)
		s.HasStderr = true
	}
	k.Unregister(s.World)
	s.kernel = nil
	s.lcDiscard(k, exited)
	if !exited {
		return s.protocolFault("the kernel was still running %d s after the end of its input; PROTOCOL.md §2: the kernel exits", secs)
	}
	return nil
}

func (s *Scenario) lcExitedAtEOF(lc *lcState) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if !lc.exited {
		return s.protocolFault("the kernel was still running %v after the end of its input, with %d sessions waiting in a model call; PROTOCOL.md §2: the harness is gone and the kernel exits",
			s.env.Scale(lcExit), len(lc.sessions))
	}
	return nil
}

// lcEndWhileRunning runs n root sessions on a kernel of its own; when each
// waits in a model call (or, hook named, in its call to that subscriber),
// the harness sends shutdown and watches the kernel answer it and exit,
// its input left open; or (eof) closes the kernel's input and watches it
// exit.
func (s *Scenario) lcEndWhileRunning(ctx context.Context, lc *lcState, n int, eof bool, hook string) error {
	if s.ran {
		return scenarioDefect("the scenario runs its sessions twice")
	}
	s.ran = true
	k, err := s.env.Pool.Get(ctx)
	if err != nil {
		s.Fault = err
		return err
	}
	hung := make(chan string, n)
	if hook == "" {
		s.World.Model.OnHang = func(session string) { hung <- session }
	} else {
		b := s.World.Hooks.Get(hook)
		if b.Action != fakes.HookHang {
			return scenarioDefect("the sessions wait on %q, which does not hang", hook)
		}
		var mu sync.Mutex
		seen := map[string]bool{}
		b.OnCall = func(p wire.HookDispatchParams) {
			mu.Lock()
			defer mu.Unlock()
			if id := p.CallContext.SessionID; !seen[id] {
				seen[id] = true
				hung <- id
			}
		}
		s.World.Hooks.Set(hook, b)
	}
	lc.sessions = make([]string, n)
	lc.results = make([]wire.RunSessionResult, n)
	lc.runErrs = make([]error, n)
	var wg sync.WaitGroup
	timeout := s.env.Scale(s.env.ScenarioTimeout)
	for i := range n {
		id := s.SessionID
		if i > 0 {
			id = fmt.Sprintf("%s-%d", s.SessionID, i+1)
		}
		lc.sessions[i] = id
		wg.Add(1)
		go func() {
			defer wg.Done()
			lc.results[i], lc.runErrs[i] = k.Run(ctx, s.World, wire.RunParams{SessionID: id, Prompt: s.Prompt, Config: s.Cfg}, timeout)
		}()
	}
	waiting := map[string]bool{}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for len(waiting) < n {
		select {
		case id := <-hung:
			waiting[id] = true
		case <-deadline.C:
			s.lcDiscard(k, false)
			wg.Wait()
			return s.protocolFault("only %d of %d sessions reached the call the harness holds within %v", len(waiting), n, timeout)
		}
	}
	if eof {
		_ = k.CloseInput()
		lc.exited, _ = k.AwaitExit(s.env.Scale(lcExit))
		s.lcDiscard(k, lc.exited)
		wg.Wait() // the sessions' answers are lost with the harness: not judged
		return nil
	}
	lc.shutErr = k.ShutdownAnswer(ctx, s.env.Scale(lcShutdownAnswer))
	// The answer is read after every line the kernel wrote before it:
	// the end rows on record now are those that preceded it.
	for _, id := range lc.sessions {
		if s.lcEndRow(id) != nil {
			lc.endedAtAns = append(lc.endedAtAns, id)
		}
	}
	if lc.shutErr == nil {
		lc.exited, lc.exitErr = k.AwaitExit(s.env.Scale(lcExit))
	}
	s.lcDiscard(k, lc.exited)
	wg.Wait()
	s.Result = lc.results[0]
	return nil
}

// lcDiscard stops a kernel that is not reused. One that has not exited
// is stopped without waiting: an in-process kernel that stays can never
// be waited out, and the connection closes first, which ends every call
// still waiting on it.
func (s *Scenario) lcDiscard(k *driver.Kernel, exited bool) {
	if exited {
		s.env.Pool.Discard(k)
		return
	}
	go s.env.Pool.Discard(k)
}

// lcEndRow is a session's last session_meta row if it is an end row.
func (s *Scenario) lcEndRow(id string) *wire.SessionMeta {
	var last *wire.SessionMeta
	for _, m := range s.World.Metas() {
		if m.SessionID == id {
			last = &m
		}
	}
	if last == nil || last.Status == wire.StatusRunning {
		return nil
	}
	return last
}

func (s *Scenario) lcShutdownOrder(lc *lcState) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if lc.shutErr != nil {
		return s.protocolFault("shutdown, sent while %d sessions waited in a model call, was not answered {} within %v: %v; PROTOCOL.md §5 item 6: the kernel cancels them and answers {}",
			len(lc.sessions), s.env.Scale(lcShutdownAnswer), lc.shutErr)
	}
	var late []string
	for _, id := range lc.sessions {
		if !slices.Contains(lc.endedAtAns, id) {
			late = append(late, id)
		}
	}
	if len(late) > 0 {
		return s.protocolFault("shutdown was answered before the end session_meta row of %s; PROTOCOL.md §5 item 6: every running session is cancelled and ends before shutdown is answered", strings.Join(late, ", "))
	}
	for i, err := range lc.runErrs {
		if err != nil {
			return s.protocolFault("session/run of %s, running when shutdown came, was not answered: %v", lc.sessions[i], err)
		}
	}
	return nil
}

func (s *Scenario) lcExitedAfterShutdown(lc *lcState) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	switch {
	case lc.shutErr != nil:
		return s.protocolFault("shutdown was not answered (%v), so the kernel's exit after it cannot be judged", lc.shutErr)
	case !lc.exited:
		return s.protocolFault("the kernel was still running %v after it answered shutdown, its input still open; PROTOCOL.md §6.6: after answering, the kernel exits 0", s.env.Scale(lcExit))
	case lc.exitErr != nil:
		return s.protocolFault("after answering shutdown the kernel ended with %v; PROTOCOL.md §6.6: it exits 0", lc.exitErr)
	}
	return nil
}

// TA-18: a session ended by shutdown still fires session-start and
// session-end once each and records its status.
func (s *Scenario) lcEachEnded(lc *lcState, status string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if len(lc.sessions) == 0 {
		return notReached("no session ran")
	}
	for i, id := range lc.sessions {
		for _, point := range []string{wire.PointSessionStart, wire.PointSessionEnd} {
			d := s.World.Log.Select(func(e *calllog.Entry) bool {
				p, ok := e.Value.(wire.HookDispatchParams)
				return ok && e.SessionID == id && p.Point == point
			})
			if len(d) != 1 {
				return fmt.Errorf("session %s dispatched %q %d times; exactly once, whatever ended it", id, point, len(d))
			}
			if p := d[0].Value.(wire.HookDispatchParams); point == wire.PointSessionEnd && p.Payload.Status != status {
				return fmt.Errorf("the session-end payload of %s says status %q, expected %q", id, p.Payload.Status, status)
			}
		}
		end := s.lcEndRow(id)
		switch {
		case end == nil:
			return fmt.Errorf("session %s sent no end session_meta row", id)
		case end.Status != status:
			return fmt.Errorf("the end session_meta row of %s says status %q, expected %q", id, end.Status, status)
		}
		if lc.runErrs[i] == nil && lc.results[i].Status != status {
			return fmt.Errorf("session/run of %s was answered with status %q, expected %q", id, lc.results[i].Status, status)
		}
	}
	return nil
}
