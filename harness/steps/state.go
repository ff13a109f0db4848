package steps

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cucumber/godog"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/spec/wire"
)

// Env is what every scenario shares: where kernels come from and how long a
// session may take before the kernel is declared hung.
type Env struct {
	Pool            *driver.Pool
	ScenarioTimeout time.Duration
	// Info is the kernel's initialize answer (capabilities, readings).
	Info wire.InitializeResult
	// Stop, when done, means the run was interrupted: scenarios not yet
	// started are not run, and running sessions are abandoned as not run
	// rather than blamed on the kernel.
	Stop context.Context
	// TimeoutMultiplier scales every duration the suite uses (>= 1).
	TimeoutMultiplier float64
	// Bridged: the kernel is conform's agent bridge, whose bridge.*
	// readings are honoured; any other kernel declaring them is ignored.
	Bridged bool
}

// Scale stretches a duration of the suite by the run's timeout multiplier,
// so a slow kernel or machine gets room without editing features.
// within is a scenario's upper time bound of ms milliseconds, stretched by
// --timeout-multiplier like every other wait: a slow kernel or machine gets
// room, never a failure. Lower bounds (a retry-after honoured in full) are
// the kernel's duty and are not stretched.
func (s *Scenario) within(ms int) time.Duration {
	return s.env.Scale(time.Duration(ms) * time.Millisecond)
}

func (e *Env) Scale(d time.Duration) time.Duration {
	if e == nil || e.TimeoutMultiplier <= 1 {
		return d
	}
	return time.Duration(float64(d) * e.TimeoutMultiplier)
}

var sessionSeq atomic.Int64

// Scenario is one scenario's state.
type Scenario struct {
	env   *Env
	World *fakes.World
	Cfg   wire.SessionConfig
	// Prompt is the user's first message.
	Prompt    string
	SessionID string

	kernel   *driver.Kernel
	ran      bool
	Result   wire.RunSessionResult
	Rejected *driver.ConfigRejected
	// Fault is set when the kernel broke the protocol: verdict error.
	Fault error
	// Defect says how the scenario itself is ill-formed, found by one of
	// its checks (a check before "When the session runs", a bound the
	// check reads that the scenario never sets): verdict error, naming
	// the scenario's defect, never a fail of the kernel.
	Defect string
	// Skip carries the reason the scenario was skipped.
	Skip string
	// NotRun says why the scenario did not run (the run was interrupted).
	NotRun string
	// Checks are the outcomes of the scenario's checks, in step order.
	Checks []CheckOutcome
	// Observations are recorded without judging (observe).
	Observations []Observation
	// Stderr is what the scenario's kernel wrote to stderr while the
	// scenario held it, for a repro bundle; StderrLost counts the bytes
	// the kept window no longer held. HasStderr is false when the kernel
	// has none (in-process) or never started.
	Stderr     string
	StderrLost int64
	HasStderr  bool
	stderrMark int64

	tagged map[string]bool // the scenario's tags, without "@"
	step   *godog.Step     // the step being run

	started, ended time.Time

	cancelOnHang int
	// cancelSent is set once the harness has cancelled the session at a
	// moment nothing else could end it (cancelledWhen says which: while
	// its model request hung, or with a tool's answer): the session can
	// only end cancelled then (PROTOCOL.md §5 item 4).
	cancelSent    atomic.Bool
	cancelledWhen string
	hookCancelFor string   // the subscriber whose call the harness cancels the session during
	modelTools    []string // tool names the scenario declared, in order

	hooks hookState // hook dispatch area (hooks.go)

	limits limitsState // bounds, cost, doom loop, call context area (bounds.go)
	// onRun run with the kernel just before the session starts, so that a
	// scenario can act on the kernel during the run (continue, cancel).
	onRun []func(k *driver.Kernel)
	// extraTime is time the scenario's own script lets the kernel take
	// beyond the scenario timeout: waits a check allows and bounds by a
	// ceiling of its own (a declared slow backoff, errors_ceiling.go), so
	// that the ceiling, not the timeout, ends a kernel that overruns them.
	extraTime time.Duration
	// watchers run beside the session until it ends. One may end the run
	// early with cut, once a check's upper bound has passed: the checks
	// then judge what was recorded, and the kernel is replaced, not blamed
	// for a hang.
	watchers []func(ctx context.Context, cut func(why string))
	// starve is the retry watcher's record of a busy machine; nil
	// without one (errors_starve.go).
	starve *starveRecord
	cutMu  sync.Mutex
	cutWhy string

	// walked is the invariants' judgement of the log as it stood at
	// walkedSeq (invariants.go).
	walked    verdicts
	walkedSeq int
}

// cutReason says why the harness ended the run early; "" when it did not.
func (s *Scenario) cutReason() string {
	s.cutMu.Lock()
	defer s.cutMu.Unlock()
	return s.cutWhy
}

// newScenario starts a scenario with the defaults every check relies on: one
// fake model with a simple price, telemetry on, explicit hook timeout.
func newScenario(env *Env) *Scenario {
	n := sessionSeq.Add(1)
	now := time.Now()
	maxTurns := 25 // a safety net so a kernel without done detection still ends
	return &Scenario{
		env:       env,
		started:   now,
		World:     fakes.NewWorld(),
		Prompt:    fmt.Sprintf("Please help with task %d.", n),
		SessionID: fmt.Sprintf("conform-s%d", n),
		Cfg: wire.SessionConfig{
			Profile:          "conform",
			WorkingDirectory: "/conform/work",
			Bounds:           wire.Bounds{MaxTurns: &maxTurns},
			Hooks:            wire.Hooks{DefaultTimeoutMS: 2000, Subscribers: []wire.Subscriber{}},
			Policy:           wire.Policy{Rules: []wire.PolicyRule{}},
			Telemetry:        true,
			Model: wire.ModelSpec{
				Name: "fake-model", SupportsToolUse: true, SupportsParallelToolCalls: true,
				Pricing: wire.Pricing{Currency: "USD", Tiers: []wire.PricingTier{{InputPerMtok: 1, OutputPerMtok: 2}}},
			},
			Tools: []wire.ToolSchema{},
		},
	}
}

// run drives the session to its end once.
func (s *Scenario) run(ctx context.Context) error {
	if s.ran {
		return scenarioDefect("the scenario runs the session twice")
	}
	s.ran = true
	k, err := s.env.Pool.Get(ctx)
	if err != nil {
		if ctx.Err() != nil || (s.env.Stop != nil && s.env.Stop.Err() != nil) {
			s.NotRun = "the run was interrupted before this scenario's kernel started"
		}
		s.Fault = err
		return err
	}
	s.kernel = k
	s.stderrMark = k.StderrMark()
	if s.cancelOnHang > 0 {
		s.World.Model.OnHang = func(session string) {
			if session == s.SessionID {
				s.cancelSent.Store(true)
			}
			go func() { _ = k.Cancel(context.Background(), session) }()
		}
	}
	for _, f := range s.onRun {
		f(k)
	}
	rctx := ctx
	if s.env.Stop != nil {
		var stop context.CancelFunc
		rctx, stop = context.WithCancel(ctx)
		defer stop()
		defer context.AfterFunc(s.env.Stop, stop)()
	}
	rctx, cutRun := context.WithCancel(rctx)
	defer cutRun()
	for _, w := range s.watchers {
		go w(rctx, func(why string) {
			s.cutMu.Lock()
			if s.cutWhy == "" {
				s.cutWhy = why
			}
			s.cutMu.Unlock()
			cutRun()
		})
	}
	res, err := k.Run(rctx, s.World, wire.RunParams{SessionID: s.SessionID, Prompt: s.Prompt, Config: s.Cfg}, s.env.Scale(s.env.ScenarioTimeout)+s.extraTime)
	if s.cutReason() != "" {
		// The harness ended the run at a check's ceiling: no result, no
		// fault; the checks say what the ceiling caught.
		return nil
	}
	s.Result = res
	if err != nil && rctx.Err() != nil && (ctx.Err() != nil || s.env.Stop.Err() != nil) {
		// Interrupted by the user, not a kernel fault.
		s.NotRun = "the run was interrupted while this scenario ran"
		s.Fault = &driver.Fault{What: "interrupted"} // the kernel is discarded, not reused
		return err
	}
	var rej *driver.ConfigRejected
	switch {
	case errors.As(err, &rej):
		s.Rejected = rej
		return nil
	case err != nil:
		s.Fault = err
		return err
	}
	if p := s.World.Problems(); len(p) > 0 {
		s.Fault = &driver.Fault{What: strings.Join(p, "; ")}
		return s.Fault
	}
	return nil
}

// release ends the scenario: held fakes are let go, and the kernel goes back
// to the pool, or away if it faulted.
func (s *Scenario) release() {
	s.ended = time.Now()
	s.World.Close()
	if s.kernel == nil {
		return
	}
	if s.stderrMark >= 0 {
		s.Stderr, s.StderrLost = s.kernel.StderrSince(s.stderrMark)
		s.HasStderr = true
	}
	s.kernel.Unregister(s.World)
	if s.Fault != nil || s.cutReason() != "" {
		s.env.Pool.Discard(s.kernel)
	} else {
		s.env.Pool.Put(s.kernel)
	}
	s.kernel = nil
}

func (s *Scenario) mustHaveRun() error {
	if err := s.mustHaveStarted(); err != nil {
		return err
	}
	if s.Rejected != nil {
		return fmt.Errorf("the kernel rejected the session config: %s", s.Rejected.Message)
	}
	if why := s.cutReason(); why != "" {
		return notReached("the harness ended the session early: %s", why)
	}
	return nil
}

// mustHaveStarted is the scenario's own precondition of every check: the
// session ran. A check placed before "When the session runs" is a defect
// of the scenario, whatever the kernel does.
func (s *Scenario) mustHaveStarted() error {
	if !s.ran {
		return scenarioDefect("step needs the session to have run (add \"When the session runs\")")
	}
	return nil
}

// Started is when the scenario started.
func (s *Scenario) Started() time.Time { return s.started }

// Elapsed is how long the scenario took.
func (s *Scenario) Elapsed() time.Duration {
	if s.ended.IsZero() {
		return time.Since(s.started)
	}
	return s.ended.Sub(s.started)
}
