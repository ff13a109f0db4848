package mutants

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/cost"
	"github.com/agentconform/conform/refkernel/doomloop"
	"github.com/agentconform/conform/refkernel/hooks"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/subagent"
	"github.com/agentconform/conform/spec/wire"
)

// Semantic mutants of the turn area (issue 29): wrong kernels written the
// way real loops go wrong, not a flipped operator the mutation tool would
// try. Each breaks one clause of spec/clauses.json and is killed by that
// clause's check:
//
//   - off-by-one end: a spend that reaches the cap exactly does not fire
//     (TA-03.cap, "a spend that reaches the cap exactly leaves no budget");
//   - values over the wrong set: the cache counters left out of the price
//     (TA-24.formula), reasoning billed at the input rate (TA-24.formula);
//   - keyed by the wrong field: the pricing tier chosen by all the tokens
//     of a reply instead of its input tokens (TA-25.tier);
//   - counted over the wrong set: identical calls counted anywhere in the
//     window instead of as the latest run (TA-26.limit-path, "a different
//     call in between starts the count again");
//   - only the ends of a chain: a roll-up that skips the middle session of
//     a tree (TA-07.grandchild; it passed TA-07 until the scenario of a
//     grandchild's spending against its parent's budget, and SA-11's
//     totals catch it too);
//   - state kept for the root only: session-start and session-end never
//     dispatched in a child or grandchild (TA-18.once, tree side; it passed
//     every TA-18 scenario, all of a single session, before the tree one).
func init() {
	register(
		Mutant{Name: "semantic/cost-cap-strict", Targets: []string{"TA-03"},
			Breaks: "the cost bound fires only once the spend exceeds max_cost_usd; a spend that reaches it exactly goes on",
			Apply: func(p loop.Parts) loop.Parts {
				p.Bounds = strictCost{}
				return p
			}},
		Mutant{Name: "semantic/cache-tokens-unpriced", Targets: []string{"TA-06", "TA-24"},
			Breaks: "cache_read and cache_write tokens are left out of the price: input, output and reasoning only",
			Apply:  withCost(cacheUnpriced{})},
		Mutant{Name: "semantic/reasoning-at-input-rate", Targets: []string{"TA-24"},
			Breaks: "reasoning tokens are billed at the input rate instead of the output rate",
			Apply:  withCost(reasoningAtInput{})},
		Mutant{Name: "semantic/tier-by-all-tokens", Targets: []string{"TA-25"},
			Breaks: "the pricing tier is chosen by input plus output tokens instead of input tokens",
			Apply:  withCost(tierByAllTokens{})},
		Mutant{Name: "semantic/doom-count-in-window", Targets: []string{"TA-26"},
			Breaks: "the doom-loop detector fires when threshold calls of the window share the latest hash, wherever they are, instead of the latest threshold calls in a row",
			Apply: func(p loop.Parts) loop.Parts {
				p.DoomLoop = countInWindow{}
				return p
			}},
	)
}

func withCost(c cost.Calculator) func(loop.Parts) loop.Parts {
	return func(p loop.Parts) loop.Parts {
		p.Cost = c
		return p
	}
}

type strictCost struct{ bounds.Standard }

func (strictCost) Check(l wire.Bounds, s bounds.State) (bounds.Fired, bool) {
	if l.MaxCostUSD != nil && s.CostUSD == *l.MaxCostUSD {
		s.CostUSD = 0 // reached exactly: "not over the cap yet"
		if f, ok := (bounds.Standard{}).Check(l, s); ok {
			return f, true
		}
		return bounds.Fired{}, false
	}
	return bounds.Standard{}.Check(l, s)
}

type cacheUnpriced struct{ cost.Standard }

func (cacheUnpriced) Cost(p wire.Pricing, u wire.Usage, at time.Time) (cost.Charge, error) {
	u.CacheReadTokens, u.CacheWriteTokens = nil, nil
	return cost.Standard{}.Cost(p, u, at)
}

type reasoningAtInput struct{ cost.Standard }

func (reasoningAtInput) Cost(p wire.Pricing, u wire.Usage, at time.Time) (cost.Charge, error) {
	c, err := cost.Standard{}.Cost(p, u, at)
	if err != nil || p.Free || u.ReasoningTokens == nil {
		return c, err
	}
	t := p.Tiers[c.Tier]
	c.USD += float64(*u.ReasoningTokens) * (t.InputPerMtok - t.OutputPerMtok) / 1e6
	return c, nil
}

type tierByAllTokens struct{ cost.Standard }

func (tierByAllTokens) Cost(p wire.Pricing, u wire.Usage, at time.Time) (cost.Charge, error) {
	if p.Free {
		return cost.Charge{}, nil
	}
	i, err := cost.Select(p, at, u.InputTokens+u.OutputTokens)
	if err != nil {
		return cost.Charge{}, err
	}
	return cost.Charge{USD: cost.Formula(p.Tiers[i], u), Tier: i}, nil
}

type countInWindow struct{ doomloop.Standard }

func (countInWindow) Check(history []string, threshold int) (doomloop.Trip, bool) {
	if threshold < 1 || len(history) == 0 {
		return doomloop.Trip{}, false
	}
	last, n := history[len(history)-1], 0
	for _, h := range history {
		if h == last {
			n++
		}
	}
	if n < threshold {
		return doomloop.Trip{}, false
	}
	return doomloop.Trip{Hash: last, Count: n, Threshold: threshold}, true
}

// Only the ends of a chain (issue 29): a usage is debited from the
// spender and from the root, but not from the sessions between them, so a
// grandchild's spend never reaches its parent's totals or budget.
func init() {
	register(Mutant{Name: "semantic/rollup-skips-middle", Targets: []string{"TA-07", "SA-11"},
		Breaks: "a usage is debited from the spending session and the root only, not from the sessions between them",
		Apply: func(p loop.Parts) loop.Parts {
			p.Subagents = skipMiddle{}
			return p
		}})
}

type skipMiddle struct{ subagent.Standard }

func (skipMiddle) Payers(n *subagent.Node) []*subagent.Node {
	out := []*subagent.Node{n}
	root := n
	for root.Parent != nil {
		root = root.Parent
	}
	if root != n {
		out = append(out, root)
	}
	return out
}

// State kept for the root only (issue 29): session-start and session-end
// are dispatched for the root session but not for its children, the way a
// loop that fires its lifecycle hooks around the top-level run does.
func init() {
	register(Mutant{Name: "semantic/lifecycle-root-only", Targets: []string{"TA-18"},
		Breaks: "session-start and session-end are dispatched for the root session only, never for a child or grandchild",
		Apply: func(p loop.Parts) loop.Parts {
			p.Hooks = rootLifecycleOnly{hooks.Standard{}}
			return p
		}})
}

type rootLifecycleOnly struct{ hooks.Dispatcher }

func (d rootLifecycleOnly) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	child := strings.Contains(req.CallContext.SessionID, "/") // the reference names a child parent/cN
	if child && (req.Point == wire.PointSessionStart || req.Point == wire.PointSessionEnd) {
		return hooks.Outcome{Payload: req.Payload}, nil
	}
	return d.Dispatcher.Dispatch(ctx, env, req)
}

// Keyed by the wrong session (issue 29): a child's reads are dispatched
// with its parent's session_id in their call_context, the way a loop that
// runs a sub-agent's tools through the parent's tool runner does. The
// child's model requests still carry its own id, so nothing else breaks;
// only a check of the invokes in a tree sees it (TA-31.call-context, tree
// side).
func init() {
	register(Mutant{Name: "semantic/child-invokes-as-parent", Targets: []string{"TA-31"},
		Breaks: "a child session's data_source invokes carry its parent's session_id in their call_context",
		Apply: func(p loop.Parts) loop.Parts {
			steps := slices.Clone(p.Steps)
			i := slices.IndexFunc(steps, func(s loop.Step) bool { return s.Name == loop.StepDataSources })
			run := steps[i].Run
			steps[i].Run = func(t *loop.Turn) error {
				own := t.CallContext.SessionID
				if j := strings.LastIndex(own, "/"); j > 0 {
					t.CallContext.SessionID = own[:j] // the reference names a child parent/cN
					defer func() { t.CallContext.SessionID = own }()
				}
				return run(t)
			}
			p.Steps = steps
			return p
		}})
}

// State kept for the root only (issue 29): a sub-agent's loop asks for a
// confirming text reply before it stops, so a child's first reply without
// tool calls does not end it; the root's done detection is the standard
// one. Only done detection checked in a child shows it (TA-10, tree side).
func init() {
	register(Mutant{Name: "semantic/child-needs-two-text-replies", Targets: []string{"TA-10"},
		Breaks: "in a child or grandchild session a reply without tool calls ends the session only when the reply before it had none either",
		Apply: func(p loop.Parts) loop.Parts {
			var mu sync.Mutex
			texted := map[string]bool{} // session → its last reply had no tool call
			steps := slices.Clone(p.Steps)
			i := slices.IndexFunc(steps, func(s loop.Step) bool { return s.Name == loop.StepDoneCheck })
			run := steps[i].Run
			steps[i].Run = func(t *loop.Turn) error {
				if err := run(t); err != nil || !strings.Contains(t.Session.ID(), "/") || t.Final != nil {
					return err
				}
				mu.Lock()
				defer mu.Unlock()
				id := t.Session.ID()
				if t.Done && !texted[id] {
					t.Done, t.End = false, false
				}
				texted[id] = loop.StandardDone{}.Finished(t.Message)
				return nil
			}
			p.Steps = steps
			return p
		}})
}
