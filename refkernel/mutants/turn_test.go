package mutants

import (
	"context"
	"sync"

	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/hooks"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/trace"
	"github.com/agentconform/conform/spec/wire"
	"go.opentelemetry.io/otel/attribute"
)

// Mutants of the turn loop, the limit-reached path, done detection, the
// session lifecycle and tracing (foundation scenarios).
func init() {
	register(
		Mutant{Name: "steps/apply-before-reads", Targets: []string{"TA-01"},
			Breaks: "resource applies (step 12) run before data-source reads (step 9)",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = loop.Swap(loop.DefaultSteps(), loop.StepDataSources, loop.StepApply)
				return p
			}},
		Mutant{Name: "steps/post-apply-before-post-tool-call", Targets: []string{"TA-01"},
			Breaks: "post-apply (step 14) is dispatched before post-tool-call (step 13)",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = loop.Swap(loop.DefaultSteps(), loop.StepPostToolCall, loop.StepPostApply)
				return p
			}},
		Mutant{Name: "steps/pre-model-call-before-context", Targets: []string{"TA-01"},
			Breaks: "pre-model-call (step 2) runs before context-assemble (step 1)",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = loop.Swap(loop.DefaultSteps(), loop.StepContextAssemble, loop.StepPreModelCall)
				return p
			}},
		Mutant{Name: "steps/interactive-after-plan", Targets: []string{"TA-01"},
			Breaks: "interactive calls (step 9b) run after plan-ready (step 11)",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = loop.Move(loop.DefaultSteps(), loop.StepInteractive, loop.StepApply)
				return p
			}},
		Mutant{Name: "steps/no-history", Targets: []string{"TA-01", "TA-20"},
			Breaks: "step 15 is skipped: the model never sees its calls and their results",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = loop.Without(loop.DefaultSteps(), loop.StepHistory)
				return p
			}},
		Mutant{Name: "bounds/max-turns-off-by-one", Targets: []string{"TA-02"},
			Breaks: "max_turns fires one turn late",
			Apply: func(p loop.Parts) loop.Parts {
				p.Bounds = offByOne{}
				return p
			}},
		Mutant{Name: "bounds/never-fire", Targets: []string{"TA-02", "TA-03", "TA-04", "TA-05", "TA-19"},
			Breaks: "no bound ever fires (what follows a fired bound, TA-08 and TA-21, is then not reached)",
			Apply: func(p loop.Parts) loop.Parts {
				p.Bounds = neverFire{}
				return p
			}},
		Mutant{Name: "limit/no-final-turn", Targets: []string{"TA-08", "TA-21", "TA-26"},
			Breaks: "a fired bound or doom loop ends the session at once, without the final-answer turn",
			Apply: func(p loop.Parts) loop.Parts {
				p.Limit = noFinalTurn{}
				return p
			}},
		Mutant{Name: "limit/tools-not-withheld", Targets: []string{"TA-20"},
			Breaks: "the final-answer request still offers every tool",
			Apply: func(p loop.Parts) loop.Parts {
				p.Limit = finalTurn{loop.FinalTurn{WithholdTools: false, Instruction: "Please give your final answer now."}}
				return p
			}},
		Mutant{Name: "limit/no-instruction", Targets: []string{"TA-20"},
			Breaks: "the final-answer request carries no kernel instruction",
			Apply: func(p loop.Parts) loop.Parts {
				p.Limit = finalTurn{loop.FinalTurn{WithholdTools: true}}
				return p
			}},
		Mutant{Name: "limit/ordinary-last-request", Targets: []string{"TA-02", "TA-03", "TA-04", "TA-05", "TA-08", "TA-12", "TA-19", "TA-21", "TA-26"},
			Breaks: "no final-answer turn: after a bound or the doom loop fires the kernel sends one more ordinary request (tools offered, no instruction, not labelled) and drops its calls, as a loop whose cap counts tool rounds does (Genkit's WithMaxTurns(n) allows n+1 model turns): one ordinary turn past the bound (TA-02..TA-05, TA-12, TA-19) and no final-answer turn (TA-08, TA-21, TA-26; TA-20 is not reached, there is no final-answer request to judge)",
			Apply: func(p loop.Parts) loop.Parts {
				p.Limit = finalTurn{loop.FinalTurn{Unlabelled: true}}
				return p
			}},
		Mutant{Name: "limit/dot-instruction", Targets: []string{"TA-20"},
			Breaks: "the final-answer request's only new text is \".\": no instruction that a limit was reached",
			Apply: func(p loop.Parts) loop.Parts {
				p.Limit = finalTurn{loop.FinalTurn{WithholdTools: true, Instruction: "."}}
				return p
			}},
		Mutant{Name: "limit/final-answer-folded-into-last-turn", Targets: []string{"TA-31"},
			Breaks: "the final-answer turn is run as part of the last turn: the same turn_id, and no context assembly of its own",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = foldFinalTurn()
				return p
			}},
		Mutant{Name: "done/never", Targets: []string{"TA-10"},
			Breaks: "a reply without tool calls does not end the loop",
			Apply: func(p loop.Parts) loop.Parts {
				p.Done = neverDone{}
				return p
			}},
		Mutant{Name: "lifecycle/session-end-twice", Targets: []string{"TA-18"},
			Breaks: "session-end is dispatched twice",
			Apply: func(p loop.Parts) loop.Parts {
				p.Hooks = twiceAt{Dispatcher: hooks.Standard{}, point: wire.PointSessionEnd}
				return p
			}},
		Mutant{Name: "lifecycle/no-session-start", Targets: []string{"TA-18"},
			Breaks: "session-start is never dispatched",
			Apply: func(p loop.Parts) loop.Parts {
				p.Hooks = skipAt{Dispatcher: hooks.Standard{}, point: wire.PointSessionStart}
				return p
			}},
		Mutant{Name: "lifecycle/session-end-says-completed", Targets: []string{"TA-18", "TA-21"},
			Breaks: "the session-end payload always says completed",
			Apply: func(p loop.Parts) loop.Parts {
				p.Hooks = statusLie{Dispatcher: hooks.Standard{}}
				return p
			}},
		Mutant{Name: "trace/no-turn-spans", Targets: []string{"TA-17"},
			Breaks: "no span is emitted for a turn",
			Apply: func(p loop.Parts) loop.Parts {
				p.Tracer = dropRole(wire.RoleTurn)
				return p
			}},
		Mutant{Name: "trace/no-policy-chain-span", Targets: []string{"TA-17"},
			Breaks: "the plan-ready policy chain has no span",
			Apply: func(p loop.Parts) loop.Parts {
				p.Tracer = dropRole(wire.RolePolicyChain)
				return p
			}},
		Mutant{Name: "trace/policy-chain-span-empty", Targets: []string{"TA-17"},
			Breaks: "the plan-ready policy chain's span ends as soon as it starts: it encloses none of the plan's decisions",
			Apply: func(p loop.Parts) loop.Parts {
				p.Tracer = emptyRole(wire.RolePolicyChain)
				return p
			}},
		Mutant{Name: "trace/no-model-call-span", Targets: []string{"TA-17"},
			Breaks: "the model call has no span",
			Apply: func(p loop.Parts) loop.Parts {
				p.Tracer = dropRole(wire.RoleModelCall)
				return p
			}},
	)
}

type offByOne struct{}

func (offByOne) Check(l wire.Bounds, s bounds.State) (bounds.Fired, bool) {
	s.Turns--
	return bounds.Standard{}.Check(l, s)
}

type neverFire struct{}

func (neverFire) Check(wire.Bounds, bounds.State) (bounds.Fired, bool) { return bounds.Fired{}, false }

type noFinalTurn struct{}

func (noFinalTurn) FinalTurn(bounds.Fired) (loop.FinalTurn, bool) { return loop.FinalTurn{}, false }

type finalTurn struct{ f loop.FinalTurn }

func (f finalTurn) FinalTurn(bounds.Fired) (loop.FinalTurn, bool) { return f.f, true }

type neverDone struct{ loop.StandardDone }

func (neverDone) Finished(wire.Message) bool { return false }

type twiceAt struct {
	hooks.Dispatcher
	point string
}

func (d twiceAt) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	if req.Point == d.point {
		if _, err := d.Dispatcher.Dispatch(ctx, env, req); err != nil {
			return hooks.Outcome{}, err
		}
	}
	return d.Dispatcher.Dispatch(ctx, env, req)
}

type skipAt struct {
	hooks.Dispatcher
	point string
}

func (d skipAt) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	if req.Point == d.point {
		return hooks.Outcome{Payload: req.Payload}, nil
	}
	return d.Dispatcher.Dispatch(ctx, env, req)
}

type statusLie struct{ hooks.Dispatcher }

func (d statusLie) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	if req.Point == wire.PointSessionEnd {
		req.Payload.Status = wire.StatusCompleted
	}
	return d.Dispatcher.Dispatch(ctx, env, req)
}

// dropRole wraps the reference tracer and emits no span of one role (its
// children attach to the dropped span's parent instead).
func dropRole(role string) trace.Factory {
	return func(s trace.Settings) trace.Tracer { return roleDropper{trace.New(s), role} }
}

type roleDropper struct {
	trace.Tracer
	role string
}

func (r roleDropper) Start(ctx context.Context, role, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if role == r.role {
		return ctx, noSpan{}
	}
	return r.Tracer.Start(ctx, role, name, attrs...)
}

// emptyRole wraps the reference tracer and ends every span of one role the
// moment it starts (its children attach to that span's parent).
func emptyRole(role string) trace.Factory {
	return func(s trace.Settings) trace.Tracer { return roleEmptier{trace.New(s), role} }
}

type roleEmptier struct {
	trace.Tracer
	role string
}

func (r roleEmptier) Start(ctx context.Context, role, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if role != r.role {
		return r.Tracer.Start(ctx, role, name, attrs...)
	}
	_, sp := r.Tracer.Start(ctx, role, name, attrs...)
	sp.End()
	return ctx, noSpan{}
}

// foldFinalTurn runs the final-answer turn without a context assembly and
// under the turn_id of the turn before it.
func foldFinalTurn() []loop.Step {
	var last sync.Map // session id -> the last ordinary turn's id
	steps := loop.DefaultSteps()
	for i, st := range steps {
		if st.Name == loop.StepContextAssemble {
			run := st.Run
			steps[i].Run = func(t *loop.Turn) error {
				sid := t.CallContext.SessionID
				if t.Final == nil {
					last.Store(sid, t.CallContext.TurnID)
					return run(t)
				}
				if id, ok := last.Load(sid); ok {
					t.CallContext.TurnID = id.(string)
				}
				return nil
			}
		}
	}
	return steps
}

type noSpan struct{}

func (noSpan) SetAttributes(...attribute.KeyValue) {}
func (noSpan) End()                                {}
