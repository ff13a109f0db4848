package mutants

import (
	"strings"
	"sync"

	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/plangate"
	"github.com/agentconform/conform/spec/wire"
)

// Mutants of the first-decision-wins rule of several frontend connections
// (PA-16): what a kernel does with a decision for an item some decision has
// already decided.
func init() {
	register(
		Mutant{Name: "plan/last-decision-wins", Targets: []string{"PA-16"},
			Breaks: "a later frontend decision replaces the first one while the item is not applied yet, and is reported accepted",
			Apply: func(p loop.Parts) loop.Parts {
				p.Arbiter = lateArbiter(plangate.LateReplace)
				return p
			}},
		Mutant{Name: "plan/late-decision-dropped", Targets: []string{"PA-16"},
			Breaks: "a late frontend decision is acknowledged as accepted and silently ignored: no INVALID_CLIENT_EVENT, no frontend_error",
			Apply: func(p loop.Parts) loop.Parts {
				p.Arbiter = lateArbiter(plangate.LateIgnore)
				return p
			}},
		Mutant{Name: "plan/late-allow-applied-again", Targets: []string{"PA-16"},
			Breaks: "a late ALLOW is applied a second time: the item runs once more after the apply step, whatever the first decision was",
			Apply: func(p loop.Parts) loop.Parts {
				again := &lateAllows{}
				p.Arbiter = again
				p.Steps = wrapStep(p.Steps, loop.StepApply, func(t *loop.Turn) error {
					for _, it := range t.Plan.Items {
						if !again.take(it.ID) {
							continue
						}
						_, _ = t.Host().Invoke(t.Ctx, wire.ToolInvokeParams{
							CallContext: t.CallContext, CallID: it.ToolCallID, Provider: it.Provider, Tool: it.Tool, Input: it.Input, Attempt: 1,
						})
					}
					return nil
				})
				return p
			}},
		Mutant{Name: "plan/late-interactive-answer-replaces", Targets: []string{"PA-16"},
			Breaks: "a later answer to an interactive call replaces the first one as the call's result, and is reported accepted",
			Apply: func(p loop.Parts) loop.Parts {
				p.Arbiter = interactiveReplace{}
				return p
			}},
	)
}

// interactiveReplace lets a late interactive answer replace the first one;
// late plan decisions are rejected as in the reference.
type interactiveReplace struct{}

func (interactiveReplace) Late(l plangate.Late) plangate.LateAction {
	if l.Interactive {
		return plangate.LateReplace
	}
	return plangate.LateReject
}

// lateArbiter settles every late decision the same way.
type lateArbiter plangate.LateAction

func (a lateArbiter) Late(plangate.Late) plangate.LateAction { return plangate.LateAction(a) }

// lateAllows acknowledges late decisions and remembers the late ALLOWs, by
// plan item, for the apply step to apply once more.
type lateAllows struct{ items sync.Map }

func (a *lateAllows) Late(l plangate.Late) plangate.LateAction {
	if strings.EqualFold(l.Decision.Decision, wire.DecisionAllow) {
		a.items.Store(l.Item.ID, true)
	}
	return plangate.LateIgnore
}

func (a *lateAllows) take(id string) bool {
	_, ok := a.items.LoadAndDelete(id)
	return ok
}

// wrapStep adds after to the named step: it runs once the step has.
func wrapStep(steps []loop.Step, name string, after func(t *loop.Turn) error) []loop.Step {
	out := make([]loop.Step, len(steps))
	copy(out, steps)
	for i, st := range out {
		if st.Name != name {
			continue
		}
		run := st.Run
		out[i].Run = func(t *loop.Turn) error {
			if err := run(t); err != nil {
				return err
			}
			return after(t)
		}
	}
	return out
}
