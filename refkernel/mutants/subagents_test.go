package mutants

import (
	"context"
	"slices"
	"sync"

	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/subagent"
	"github.com/agentconform/conform/spec/wire"
)

// Mutants of the session tree: sub-agents, RunSession and the cost roll-up
// (subagents.feature). Each swaps one decision of the Subagents part.
func init() {
	sub := func(p subagent.Policy) func(loop.Parts) loop.Parts {
		return func(parts loop.Parts) loop.Parts {
			parts.Subagents = p
			return parts
		}
	}
	register(
		Mutant{Name: "subagents/child-inherits-history", Targets: []string{"SA-01"},
			Breaks: "every child starts with its parent's history, forked or not",
			Apply:  sub(alwaysFork{})},
		Mutant{Name: "subagents/no-concurrency-cap", Targets: []string{"SA-03"},
			Breaks: "max_concurrent is not enforced: every spawn starts at once",
			Apply:  sub(noCap{})},
		Mutant{Name: "subagents/no-join", Targets: []string{"SA-04", "SA-11"},
			Breaks: "session/spawn is answered at once and the parent goes on while the child runs",
			Apply:  sub(noJoin{})},
		Mutant{Name: "subagents/depth-per-profile", Targets: []string{"SA-06"},
			Breaks: "a child's depth budget is its profile's max_depth, not bounded by its parent's",
			Apply:  sub(depthPerProfile{})},
		Mutant{Name: "subagents/spawn-tool-at-depth-zero", Targets: []string{"SA-06"},
			Breaks: "the spawn tool stays in the registry when no depth budget is left",
			Apply:  sub(spawnAtZero{})},
		Mutant{Name: "subagents/recursion-on-by-default", Targets: []string{"SA-07"},
			Breaks: "children get the spawn tool whether or not their profile lists it",
			Apply:  sub(recursionOn{})},
		Mutant{Name: "subagents/no-cost-rollup", Targets: []string{"TA-07", "SA-11"},
			Breaks: "a usage is debited from the spender only, not from its ancestors",
			Apply:  sub(noRollup{})},
		Mutant{Name: "subagents/budget-ignores-parent", Targets: []string{"TA-07"},
			Breaks: "a child's budget is its profile's cap alone, not capped by the parent's remainder",
			Apply:  sub(budgetIgnoresParent{})},
		Mutant{Name: "subagents/no-cascade-to-grandchildren", Targets: []string{"SA-08"},
			Breaks: "cancelling a session reaches its children but not their children",
			Apply:  sub(noDeepCascade{})},
		Mutant{Name: "subagents/cancelled-child-failed", Targets: []string{"SA-14"},
			Breaks: "a child cancelled by a cascade is reported as failed",
			Apply:  sub(cancelledFailed{})},
		Mutant{Name: "subagents/no-child-meta", Targets: []string{"SA-13", "SA-05"},
			Breaks: "no session_meta row is reported for child sessions",
			Apply:  sub(noChildRows{})},
		Mutant{Name: "subagents/flat-parent-links", Targets: []string{"SA-05", "SA-13"},
			Breaks: "every descendant's session_meta row names the root as its parent",
			Apply:  sub(flatParents{})},
		Mutant{Name: "subagents/sibling-board", Targets: []string{"SA-09"},
			Breaks: "a child starts with the transcripts of its finished siblings",
			Apply:  sub(siblingBoard{board: &board{by: map[string][]wire.Message{}}})},
		Mutant{Name: "subagents/trusts-caller-hints", Targets: []string{"SA-10"},
			Breaks: "the caller's remaining_depth and budget replace the kernel's own",
			Apply:  sub(trustsHints{})},
		Mutant{Name: "subagents/any-parent", Targets: []string{"SA-10"},
			Breaks: "a spawn may name any live session as its parent",
			Apply:  sub(anyParent{})},
		Mutant{Name: "subagents/child-transcript-to-parent", Targets: []string{"SA-12"},
			Breaks: "a finished child's whole transcript is added to its parent's history",
			Apply:  sub(transcriptBack{})},
		Mutant{Name: "subagents/parent-tools-for-child", Targets: []string{"SA-15"},
			Breaks: "a child gets every tool of the session, not its profile's",
			Apply:  sub(parentTools{})},
		Mutant{Name: "subagents/calls-outlive-cancel", Targets: []string{"SA-08"},
			Breaks: "a cancelled descendant lets its model and tool calls in flight run to their answer, and only then ends cancelled",
			Apply:  sub(callsOutliveCancel{})},
		Mutant{Name: "subagents/leaf-totals-zero", Targets: []string{"SA-11"},
			Breaks: "token totals are folded in when a child joins, so a session that never spawned reports none",
			Apply:  sub(leafTotalsZero{})},
	)
}

type callsOutliveCancel struct{ subagent.Standard }

func (callsOutliveCancel) CallContext(n *subagent.Node, ctx context.Context) context.Context {
	if n.Parent != nil {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

type leafTotalsZero struct{ subagent.Standard }

func (leafTotalsZero) ReportTokens(n *subagent.Node, in, out int64) (int64, int64) {
	if n.Spawned() == 0 {
		return 0, 0
	}
	return in, out
}

type alwaysFork struct{ subagent.Standard }

func (alwaysFork) History(parent *subagent.Node, prof wire.ChildProfile, prompt string) []wire.Message {
	prof.ForkParentHistory = true
	return subagent.Standard{}.History(parent, prof, prompt)
}

type noCap struct{ subagent.Standard }

func (noCap) MaxConcurrent(*wire.Subagents) int { return 1 << 16 }

type noJoin struct{ subagent.Standard }

func (noJoin) Join() bool { return false }

type depthPerProfile struct{ subagent.Standard }

func (depthPerProfile) ChildDepth(parent int, prof wire.ChildProfile, hint *int) int {
	if prof.MaxDepth != nil {
		return *prof.MaxDepth
	}
	return subagent.Standard{}.ChildDepth(parent, prof, hint)
}

type spawnAtZero struct{ subagent.Standard }

func (spawnAtZero) Tools(all []wire.ToolSchema, prof *wire.ChildProfile, scoped []string, _ int) []wire.ToolSchema {
	return subagent.Standard{}.Tools(all, prof, scoped, 1)
}

type recursionOn struct{ subagent.Standard }

func (recursionOn) Tools(all []wire.ToolSchema, prof *wire.ChildProfile, scoped []string, depth int) []wire.ToolSchema {
	out := subagent.Standard{}.Tools(all, prof, scoped, depth)
	for _, t := range all {
		if prof != nil && depth > 0 && t.SpawnCapable && !slices.ContainsFunc(out, func(o wire.ToolSchema) bool { return o.Name == t.Name }) {
			out = append(out, t)
		}
	}
	return out
}

type noRollup struct{ subagent.Standard }

func (noRollup) Payers(n *subagent.Node) []*subagent.Node { return []*subagent.Node{n} }

type budgetIgnoresParent struct{ subagent.Standard }

func (budgetIgnoresParent) ChildBudget(_ *float64, prof wire.ChildProfile, hint *float64) *float64 {
	return subagent.Standard{}.ChildBudget(nil, prof, hint)
}

type noDeepCascade struct{ subagent.Standard }

func (noDeepCascade) ChildContext(parent context.Context, child *subagent.Node) (context.Context, context.CancelFunc) {
	if child.Depth >= 2 {
		return context.WithCancel(context.WithoutCancel(parent))
	}
	return context.WithCancel(parent)
}

type cancelledFailed struct{ subagent.Standard }

func (cancelledFailed) EndStatus(n *subagent.Node, status string) string {
	if n.Parent != nil && status == wire.StatusCancelled {
		return wire.StatusFailed
	}
	return status
}

type noChildRows struct{ subagent.Standard }

func (noChildRows) Row(n *subagent.Node, m wire.SessionMeta) *wire.SessionMeta {
	if n.Parent != nil {
		return nil
	}
	return &m
}

type flatParents struct{ subagent.Standard }

func (flatParents) Row(n *subagent.Node, m wire.SessionMeta) *wire.SessionMeta {
	root := n
	for root.Parent != nil {
		root = root.Parent
	}
	if n.Parent != nil {
		m.ParentSessionID = root.ID
	}
	return &m
}

// board is the shared scratch space of the sibling-board mutant, by parent.
type board struct {
	mu sync.Mutex
	by map[string][]wire.Message
}

type siblingBoard struct {
	subagent.Standard
	board *board
}

func (b siblingBoard) History(parent *subagent.Node, prof wire.ChildProfile, prompt string) []wire.Message {
	b.board.mu.Lock()
	seen := slices.Clone(b.board.by[parent.ID])
	b.board.mu.Unlock()
	return append(seen, subagent.Standard{}.History(parent, prof, prompt)...)
}

func (b siblingBoard) Returned(parent *subagent.Node, child []wire.Message) []wire.Message {
	b.board.mu.Lock()
	defer b.board.mu.Unlock()
	b.board.by[parent.ID] = append(b.board.by[parent.ID], child...)
	return nil
}

type trustsHints struct{ subagent.Standard }

func (trustsHints) ChildDepth(parent int, prof wire.ChildProfile, hint *int) int {
	if hint != nil {
		return *hint
	}
	return subagent.Standard{}.ChildDepth(parent, prof, nil)
}

func (trustsHints) ChildBudget(rem *float64, prof wire.ChildProfile, hint *float64) *float64 {
	if hint != nil {
		v := *hint
		return &v
	}
	return subagent.Standard{}.ChildBudget(rem, prof, nil)
}

type anyParent struct{ subagent.Standard }

func (anyParent) Caller(*subagent.Node, string) bool { return true }

type transcriptBack struct{ subagent.Standard }

func (transcriptBack) Returned(_ *subagent.Node, child []wire.Message) []wire.Message {
	// The child's prompt (a user message) and then everything it said.
	if len(child) > 0 {
		return []wire.Message{{Role: "user", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: "sub-agent transcript: " + transcriptText(child)}}}}
	}
	return nil
}

func transcriptText(msgs []wire.Message) string {
	var s string
	for _, m := range msgs {
		for _, c := range m.Content {
			s += c.Text + string(c.Input) + c.Content + " "
		}
	}
	return s
}

type parentTools struct{ subagent.Standard }

func (parentTools) Tools(all []wire.ToolSchema, _ *wire.ChildProfile, _ []string, depth int) []wire.ToolSchema {
	return subagent.Standard{}.Tools(all, nil, nil, depth)
}
