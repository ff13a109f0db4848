package loop

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/clock"
	"github.com/agentconform/conform/refkernel/dfirst"
	"github.com/agentconform/conform/refkernel/doomloop"
	"github.com/agentconform/conform/refkernel/hooks"
	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/refkernel/ids"
	"github.com/agentconform/conform/refkernel/plangate"
	"github.com/agentconform/conform/refkernel/retry"
	"github.com/agentconform/conform/refkernel/subagent"
	"github.com/agentconform/conform/refkernel/trace"
	"github.com/agentconform/conform/spec/wire"
)

// DefaultPreviewTimeout is the deadline of one tool/preview call (PA-12).
const DefaultPreviewTimeout = 2 * time.Second

// Setup is everything a session is made from.
type Setup struct {
	Parts          Parts
	Host           host.Host
	Clock          clock.Clock    // default clock.System
	IDs            ids.Generator  // default ids.Random
	PreviewTimeout time.Duration  // default DefaultPreviewTimeout
	Store          plangate.Store // ALWAYS decisions; default a fresh MemoryStore
	Params         wire.RunParams
	// Tree is the kernel's live session tree (default: a private one); a
	// root session joins it. Node is a child's place in it (Tree.Spawn).
	Tree *subagent.Tree
	Node *subagent.Node
	// DFPrior is what the session's earlier runs left to this one, for a
	// re-opened deterministic-first session (dfirst.go); nil otherwise.
	DFPrior *dfirst.State
	// ClockStartDelay starts the session's wall clock this long after the
	// session itself (zero for the reference kernel): a kernel that times
	// the session from the end of some setup work.
	ClockStartDelay time.Duration
}

// Session is one root session. Only the goroutine running Run touches its
// state; tool calls running in parallel write only their own Call.
type Session struct {
	parts          Parts
	host           host.Host
	clock          clock.Clock
	ids            ids.Generator
	previewTimeout time.Duration
	clockDelay     time.Duration
	cfg            wire.SessionConfig
	id             string
	prompt         string
	tools          map[string]wire.ToolSchema
	specs          []wire.ToolSpec
	gate           *plangate.Gate
	tracer         trace.Tracer

	started   time.Time
	history   []wire.Message
	hashes    []string // doom-loop sequence, newest last
	turns     int      // ordinary turns started
	ran       int      // every turn started, the final-answer turn included
	costUSD   float64
	inTokens  int64
	outTokens int64
	retries   int
	limits    limitState // soft limits, weighted tokens, model check (soft.go)
	// outSchemas are the compiled output_schemas, by tool name (ER-12);
	// crashes counts provider crashes for the circuit breaker (ER-10).
	outSchemas map[string]*retry.OutputSchema
	crashes    crashCounter
	final      *wire.Message
	node       *subagent.Node // its place in the live session tree (tree.go)
	df         *dfRun         // the deterministic-first profile, if configured (dfirst.go)
}

// NewSession checks the config and prepares a session; a refused config is
// a *ConfigError.
func NewSession(s Setup) (*Session, error) {
	parts := s.Parts.WithDefaults()
	if err := validate(s.Params, parts); err != nil {
		return nil, &ConfigError{Reason: err.Error()}
	}
	if s.Clock == nil {
		s.Clock = clock.System{}
	}
	if s.IDs == nil {
		s.IDs = ids.Random()
	}
	if s.PreviewTimeout <= 0 {
		s.PreviewTimeout = DefaultPreviewTimeout
	}
	if s.Store == nil {
		s.Store = &plangate.MemoryStore{}
	}
	cfg := s.Params.Config
	outSchemas, err := retry.CompileOutputSchemas(cfg.Tools)
	if err != nil {
		return nil, &ConfigError{Reason: err.Error()}
	}
	node, err := joinTree(s, parts)
	if err != nil {
		return nil, err
	}
	cfg.Tools = node.Config.Tools // the session's own registry (SA-06, SA-07, SA-15)
	sess := &Session{
		node:           node,
		outSchemas:     outSchemas,
		parts:          parts,
		host:           node.Track(s.Host),
		clock:          s.Clock,
		ids:            s.IDs,
		previewTimeout: s.PreviewTimeout,
		clockDelay:     s.ClockStartDelay,
		cfg:            cfg,
		id:             s.Params.SessionID,
		prompt:         s.Params.Prompt,
		tools:          map[string]wire.ToolSchema{},
		specs:          []wire.ToolSpec{},
		tracer:         parts.Tracer(trace.Settings{Enabled: cfg.Telemetry, SessionID: s.Params.SessionID, Notifier: s.Host, Clock: s.Clock}),
	}
	for _, t := range cfg.Tools {
		sess.tools[t.Name] = t
		// Plan mode works by never offering resource tools (PA-04).
		if cfg.PlanMode && t.Kind == wire.KindResource {
			continue
		}
		sess.specs = append(sess.specs, wire.ToolSpec{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	sess.gate = plangate.NewGate(plangate.GateConfig{
		Policy:         parts.Policy,
		Answers:        parts.Answers,
		Breaker:        parts.Breaker,
		Arbiter:        parts.Arbiter,
		Rules:          cfg.Policy.Rules,
		Profile:        cfg.Profile,
		PersistAlways:  cfg.Policy.PersistAlways,
		Store:          s.Store,
		Frontend:       s.Host,
		Tools:          sess.tools,
		CircuitBreaker: cfg.Policy.CircuitBreaker,
	})
	sess.openDF(s)
	return sess, nil
}

// Run runs the session to its end and returns its result.
func (s *Session) Run(ctx context.Context) wire.RunSessionResult {
	ctx = s.node.Attach(ctx) // cancelling the session cancels its subtree (SA-08)
	defer func() { s.node.End(s.transcript()) }()
	s.started = s.clock.Now().Add(s.clockDelay)
	ctx, span := s.tracer.Start(ctx, wire.RoleSession, "session", attribute.String("conform.profile", s.cfg.Profile))
	s.meta(wire.StatusRunning)

	status, err := s.loop(ctx)
	s.node.Wait() // no child outlives its parent (SA-04, SA-08)
	status = s.node.EndStatus(status)

	// session-end must fire even for a cancelled session, so it runs on a
	// context that keeps the span but not the cancellation.
	endCtx := context.WithoutCancel(ctx)
	_, _ = s.dispatch(endCtx, s.sessionCC(), wire.PointSessionEnd, wire.HookPayload{
		SessionID: s.id, Status: status, FinalMessage: s.final,
	})
	s.meta(status)
	span.SetAttributes(attribute.String("conform.status", status))
	span.End()
	_ = s.tracer.Shutdown(endCtx)

	in, out := s.node.Tokens()
	res := wire.RunSessionResult{
		SessionID:         s.id,
		Status:            status,
		FinalMessage:      s.final,
		TotalCostUSD:      s.treeCost(), // the session and its descendants (SA-11)
		TotalInputTokens:  in,
		TotalOutputTokens: out,
		Turns:             s.ran,
	}
	if err != nil {
		res.Error = err.Error()
	}
	s.closeDF(&res)
	return res
}

// loop runs session-start and the turns, and returns the final status.
func (s *Session) loop(ctx context.Context) (string, error) {
	if _, err := s.dispatch(ctx, s.sessionCC(), wire.PointSessionStart, wire.HookPayload{SessionID: s.id, Prompt: s.prompt}); err != nil {
		return s.failure(ctx, err)
	}
	s.history = s.node.StartHistory(s.prompt) // a child's: its prompt alone, unless forked (SA-01, SA-02)
	for {
		if ctx.Err() != nil {
			return wire.StatusCancelled, nil
		}
		s.history = s.node.Sync(s.history)
		if end, err := s.dfPass(ctx); err != nil || end { // the framework first (DF-01, DF-10)
			if err != nil {
				return s.failure(ctx, err)
			}
			return wire.StatusCompleted, nil
		}
		s.turns++
		t := s.newTurn(ctx, nil)
		if err := s.runTurn(t); err != nil {
			return s.failure(ctx, err)
		}
		switch {
		case t.Done:
			return wire.StatusCompleted, nil
		case t.Fired != nil && t.Fired.Soft:
			if err := s.pause(ctx, t, *t.Fired); err != nil { // TA-09, see soft.go
				return s.failure(ctx, err)
			}
		case t.Fired != nil:
			return s.limitReached(ctx, t, *t.Fired)
		}
	}
}

// limitReached reports the fired bound and runs the final-answer turn.
func (s *Session) limitReached(ctx context.Context, last *Turn, f bounds.Fired) (string, error) {
	host.Emit(s.host, s.id, last.ID, wire.EventLimitReached, host.KernelProducer, map[string]any{
		"bound": f.Bound, "status": f.Status, "soft": false,
	})
	if ft, ok := s.parts.Limit.FinalTurn(f); ok {
		if err := s.runTurn(s.newTurn(ctx, &ft)); err != nil {
			return s.failure(ctx, err)
		}
	}
	return f.Status, nil
}

func (s *Session) failure(ctx context.Context, err error) (string, error) {
	if ctx.Err() != nil {
		return wire.StatusCancelled, nil
	}
	return wire.StatusFailed, err
}

func (s *Session) dispatch(ctx context.Context, cc wire.CallContext, point string, p wire.HookPayload) (hooks.Outcome, error) {
	return s.parts.Hooks.Dispatch(ctx, hooks.Env{Host: s.host, Tracer: s.tracer}, hooks.Request{
		Point: point, Payload: p, CallContext: cc, Hooks: s.cfg.Hooks,
	})
}

func (s *Session) sessionCC() wire.CallContext {
	return wire.CallContext{SessionID: s.id, WorkingDirectory: s.cfg.WorkingDirectory}
}

func (s *Session) emit(turnID, kind string, payload map[string]any) {
	host.Emit(s.host, s.id, turnID, kind, host.KernelProducer, payload)
}

// meta sends a session_meta row: the start row while running, the end row
// with ended_at and the final message afterwards.
func (s *Session) meta(status string) {
	m := wire.SessionMeta{
		SessionID: s.id,
		Profile:   s.cfg.Profile,
		Status:    status,
		StartedAt: stamp(s.started),
	}
	if status != wire.StatusRunning {
		m.EndedAt = stamp(s.clock.Now())
		m.FinalMessage = s.final
	}
	// The tree adds parent, depth and budgets (SA-05, SA-13, TA-07).
	if row := s.node.Row(m); row != nil {
		s.host.Notify(wire.NotifySessionMeta, *row)
	}
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func textMessage(role, text string) wire.Message {
	return wire.Message{Role: role, Content: []wire.ContentBlock{{Type: wire.BlockText, Text: text}}}
}

// doomWindow is how many call hashes the session keeps.
func (s *Session) doomWindow() int { return doomloop.Window(s.cfg.DoomLoop) }
