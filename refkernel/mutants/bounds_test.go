package mutants

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/cost"
	"github.com/agentconform/conform/refkernel/doomloop"
	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// Mutants of the bounds area: the cost and wall-clock bounds, soft limits,
// cost accounting, the doom-loop detector, terminal tools, the call context
// and trace ids in persisted state.
func init() {
	register(
		Mutant{Name: "bounds/cost-never-checked", Targets: []string{"TA-03", "TA-19"},
			Breaks: "max_cost_usd is accepted but never compared with the spend",
			Apply: func(p loop.Parts) loop.Parts {
				p.Bounds = dropBounds{cost: true}
				return p
			}},
		Mutant{Name: "bounds/wall-clock-never-checked", Targets: []string{"TA-04", "TA-19"},
			Breaks: "max_wall_clock_s is accepted but the clock is never read",
			Apply: func(p loop.Parts) loop.Parts {
				p.Bounds = dropBounds{wall: true}
				return p
			}},
		Mutant{Name: "bounds/turn-bound-masks-the-others", Targets: []string{"TA-03", "TA-04", "TA-19"},
			Breaks: "bounds are not independent: with max_turns set (as in every session with a turn cap), cost and wall clock are not checked",
			Apply: func(p loop.Parts) loop.Parts {
				p.Bounds = firstOnly{}
				return p
			}},
		Mutant{Name: "bounds/checked-before-tools", Targets: []string{"TA-04", "TA-19"},
			Breaks: "the bounds are checked before the tools run, so the firing turn's calls never execute, and time spent in the tools is seen a turn late",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = boundsBeforeTools()
				return p
			}},
		Mutant{Name: "bounds/soft-by-default", Targets: []string{"TA-22"},
			Breaks: "every turn and cost bound is soft: the session waits for a continuation nobody sends",
			Apply: func(p loop.Parts) loop.Parts {
				p.Bounds = alwaysSoft{}
				return p
			}},
		Mutant{Name: "cost/ignores-reasoning", Targets: []string{"TA-06", "TA-24"},
			Breaks: "reasoning tokens are not billed",
			Apply: func(p loop.Parts) loop.Parts {
				p.Cost = noReasoning{}
				return p
			}},
		Mutant{Name: "cost/tier-until-inclusive", Targets: []string{"TA-25"},
			Breaks: "the wrong tier is picked at the boundary: input_tokens_until is treated as inclusive",
			Apply: func(p loop.Parts) loop.Parts {
				p.Cost = inclusiveUntil{}
				return p
			}},
		Mutant{Name: "cost/overlaps-accepted", Targets: []string{"TA-25"},
			Breaks: "a price list with overlapping tiers is accepted",
			Apply: func(p loop.Parts) loop.Parts {
				p.Cost = overlapsAccepted{}
				return p
			}},
		Mutant{Name: "cost/expired-tier-matches", Targets: []string{"TA-23", "TA-25"},
			Breaks: "tier time windows are ignored: the first tier of the right size wins, expired or not",
			Apply: func(p loop.Parts) loop.Parts {
				p.Cost = timeless{}
				return p
			}},
		Mutant{Name: "cost/priced-at-first-tier", Targets: []string{"TA-23", "TA-25"},
			Breaks: "every event is priced at the first tier of the price list (the prices loaded first), not the one in force when it arrived",
			Apply: func(p loop.Parts) loop.Parts {
				p.Cost = firstTier{}
				return p
			}},
		Mutant{Name: "cost/reported-one-event-late", Targets: []string{"TA-23"},
			Breaks: "each cost is reported only when the next usage event arrives",
			Apply: func(p loop.Parts) loop.Parts {
				p.Ledger = &lateLedger{held: map[string]wire.CostUsage{}}
				return p
			}},
		Mutant{Name: "doomloop/fires-one-call-early", Targets: []string{"TA-12", "TA-26"},
			Breaks: "the doom loop fires at threshold-1 identical calls",
			Apply: func(p loop.Parts) loop.Parts {
				p.DoomLoop = earlyDoom{}
				return p
			}},
		Mutant{Name: "doomloop/never-fires", Targets: []string{"TA-12", "TA-26"},
			Breaks: "the doom-loop detector never fires",
			Apply: func(p loop.Parts) loop.Parts {
				p.DoomLoop = neverDoom{}
				return p
			}},
		Mutant{Name: "doomloop/hash-ignores-tool", Targets: []string{"TA-12"},
			Breaks: "calls are hashed by their input alone, so the same input to two tools counts as one repeated call",
			Apply: func(p loop.Parts) loop.Parts {
				p.DoomLoop = inputOnlyHash{}
				return p
			}},
		Mutant{Name: "doomloop/raw-bytes-hash", Targets: []string{"TA-12"},
			Breaks: "calls are hashed as raw bytes, so reordered keys look like different calls",
			Apply: func(p loop.Parts) loop.Parts {
				p.DoomLoop = rawHash{}
				return p
			}},
		Mutant{Name: "doomloop/error-instead-of-final-turn", Targets: []string{"TA-08", "TA-26"},
			Breaks: "a detected doom loop raises an error and fails the session",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = doomRaises()
				return p
			}},
		Mutant{Name: "doomloop/declared-failed", Targets: []string{"TA-08", "TA-26"},
			Breaks: "a doom-loop ending reports failed, and the kernel declares failed as its doom_loop.status (A-06 allows no such reading)",
			Apply: func(p loop.Parts) loop.Parts {
				p.DoomLoop = doomloop.Standard{EndStatus: wire.StatusFailed}
				return p
			}},
		Mutant{Name: "doomloop/no-model-check", Targets: []string{"TA-13"},
			Breaks: "the second-tier model check never asks the model",
			Apply: func(p loop.Parts) loop.Parts {
				p.LoopCheck = noModelCheck{}
				return p
			}},
		Mutant{Name: "doomloop/acts-on-unsure-answer", Targets: []string{"TA-13"},
			Breaks: "the model check acts on any \"looping\" answer, however unsure",
			Apply: func(p loop.Parts) loop.Parts {
				p.LoopCheck = credulousCheck{}
				return p
			}},
		Mutant{Name: "done/terminal-tool-ignored", Targets: []string{"TA-27", "TA-11"},
			Breaks: "a call to a terminates_turn resource does not end the loop",
			Apply: func(p loop.Parts) loop.Parts {
				p.Done = noTerminal{}
				return p
			}},
		Mutant{Name: "callctx/turn-id-reused", Targets: []string{"TA-31"},
			Breaks: "every turn's requests carry the same turn_id",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = append([]loop.Step{{Name: "mutant-turn-id", Run: func(t *loop.Turn) error {
					t.CallContext.TurnID = t.Session.ID() + "/turn"
					return nil
				}}}, loop.DefaultSteps()...)
				return p
			}},
		Mutant{Name: "trace/id-leaked-into-event", Targets: []string{"TA-32"},
			Breaks: "every turn reports an event that carries its trace and span ids",
			Apply: func(p loop.Parts) loop.Parts {
				p.Steps = append(loop.DefaultSteps(), loop.Step{Name: "mutant-trace-event", Run: func(t *loop.Turn) error {
					sc := oteltrace.SpanContextFromContext(t.Ctx)
					t.Emit("turn_trace", map[string]any{"trace_id": sc.TraceID().String(), "span_id": sc.SpanID().String()})
					return nil
				}})
				return p
			}},
	)
}

type dropBounds struct{ cost, wall bool }

func (d dropBounds) Check(l wire.Bounds, s bounds.State) (bounds.Fired, bool) {
	if d.cost {
		l.MaxCostUSD, l.Weights = nil, nil
	}
	if d.wall {
		l.MaxWallClockS = nil
	}
	return bounds.Standard{}.Check(l, s)
}

type firstOnly struct{}

func (firstOnly) Check(l wire.Bounds, s bounds.State) (bounds.Fired, bool) {
	if l.MaxTurns != nil {
		l.MaxCostUSD, l.Weights, l.MaxWallClockS = nil, nil, nil
	}
	return bounds.Standard{}.Check(l, s)
}

type alwaysSoft struct{}

func (alwaysSoft) Check(l wire.Bounds, s bounds.State) (bounds.Fired, bool) {
	f, ok := bounds.Standard{}.Check(l, s)
	if ok && f.Bound != bounds.MaxWallClock {
		f.Soft = true
	}
	return f, ok
}

// boundsBeforeTools runs the bounds check right after done detection and
// stops the turn when a bound fires, so the firing turn's calls never run.
func boundsBeforeTools() []loop.Step {
	steps := loop.DefaultSteps()
	var check loop.Step
	for _, st := range steps {
		if st.Name == loop.StepBounds {
			check = st
		}
	}
	steps = loop.Without(steps, loop.StepBounds)
	early := loop.Step{Name: "bounds-early", Run: func(t *loop.Turn) error {
		err := check.Run(t)
		if t.Fired != nil {
			t.End = true
		}
		return err
	}}
	for i, st := range steps {
		if st.Name == loop.StepPreToolCall {
			return append(steps[:i:i], append([]loop.Step{early}, steps[i:]...)...)
		}
	}
	panic("no pre-tool-call step")
}

type noReasoning struct{ cost.Standard }

func (noReasoning) Cost(p wire.Pricing, u wire.Usage, at time.Time) (cost.Charge, error) {
	u.ReasoningTokens = nil
	return cost.Standard{}.Cost(p, u, at)
}

type inclusiveUntil struct{ cost.Standard }

func (inclusiveUntil) Cost(p wire.Pricing, u wire.Usage, at time.Time) (cost.Charge, error) {
	probe := u
	if probe.InputTokens > 0 {
		probe.InputTokens-- // n = until now lands in the lower tier
	}
	c, err := cost.Standard{}.Cost(p, probe, at)
	if err != nil || p.Free {
		return c, err
	}
	return cost.Charge{USD: cost.Formula(p.Tiers[c.Tier], u), Tier: c.Tier}, nil
}

type overlapsAccepted struct{ cost.Standard }

func (overlapsAccepted) Validate(p wire.Pricing) error {
	if err := cost.Validate(p); err != nil && !strings.Contains(err.Error(), "overlap") {
		return err
	}
	return nil
}

type timeless struct{ cost.Standard }

func (timeless) Cost(p wire.Pricing, u wire.Usage, at time.Time) (cost.Charge, error) {
	if p.Free {
		return cost.Charge{}, nil
	}
	for i, t := range p.Tiers {
		t.EffectiveFrom, t.EffectiveUntil = "", ""
		one := wire.Pricing{Currency: p.Currency, Tiers: []wire.PricingTier{t}}
		if _, err := cost.Select(one, at, u.InputTokens); err == nil {
			return cost.Charge{USD: cost.Formula(t, u), Tier: i}, nil
		}
	}
	return cost.Charge{}, errors.New("no tier")
}

// lateLedger holds each session's last report back until the next one.
type firstTier struct{ cost.Standard }

func (firstTier) Cost(p wire.Pricing, u wire.Usage, _ time.Time) (cost.Charge, error) {
	if p.Free || len(p.Tiers) == 0 {
		return cost.Charge{}, nil
	}
	return cost.Charge{USD: cost.Formula(p.Tiers[0], u), Tier: 0}, nil
}

type inputOnlyHash struct{ doomloop.Standard }

func (inputOnlyHash) Hash(_ string, input json.RawMessage) string {
	return doomloop.Standard{}.Hash("", input)
}

type lateLedger struct {
	mu   sync.Mutex
	held map[string]wire.CostUsage
}

func (l *lateLedger) Report(n host.Notifier, c wire.CostUsage) {
	l.mu.Lock()
	prev, ok := l.held[c.SessionID]
	l.held[c.SessionID] = c
	l.mu.Unlock()
	if ok {
		n.Notify(wire.NotifyCostUsage, prev)
	}
}

type earlyDoom struct{ doomloop.Standard }

func (earlyDoom) Check(h []string, threshold int) (doomloop.Trip, bool) {
	return doomloop.Standard{}.Check(h, threshold-1)
}

type neverDoom struct{ doomloop.Standard }

func (neverDoom) Check([]string, int) (doomloop.Trip, bool) { return doomloop.Trip{}, false }

type rawHash struct{ doomloop.Standard }

func (rawHash) Hash(tool string, input json.RawMessage) string { return tool + "|" + string(input) }

// doomRaises turns a fired doom loop into an error of step 16.
func doomRaises() []loop.Step {
	steps := loop.DefaultSteps()
	for i, st := range steps {
		if st.Name == loop.StepDoomLoop {
			run := st.Run
			steps[i].Run = func(t *loop.Turn) error {
				if err := run(t); err != nil {
					return err
				}
				if t.Fired != nil && t.Fired.Bound == bounds.DoomLoop {
					return errors.New("doom loop detected: the model keeps repeating the same call")
				}
				return nil
			}
		}
	}
	return steps
}

type noModelCheck struct{ doomloop.StandardCheck }

func (noModelCheck) Due(int, int) bool { return false }

type credulousCheck struct{ doomloop.StandardCheck }

func (credulousCheck) Looping(answer wire.Message) bool {
	for _, c := range answer.Content {
		if strings.Contains(c.Text, `"looping":true`) {
			return true
		}
	}
	return false
}

type noTerminal struct{ loop.StandardDone }

func (noTerminal) Terminates(wire.ToolSchema, bool) bool { return false }
