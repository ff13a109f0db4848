package mutants

import (
	"slices"
	"sync"

	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/subagent"
	"github.com/agentconform/conform/spec/wire"
)

// Semantic mutants of the sub-agent area (issue 29): session trees as
// kernels really get them wrong, in the middle of the tree or one level
// off (semantic/rollup-skips-middle, in semantic_ta_test.go, is the
// fifth).
//
//   - a value from the wrong session: a session_meta row reports its
//     parent's remaining depth (judged by SA-06's inheritance rule), or its
//     parent's remaining budget (judged by TA-07's child budget);
//   - off-by-one start: depth counted from 1 below the root (SA-05,
//     SA-13);
//   - one side of a condition: a grandchild forks its parent's history
//     although its profile does not opt in, the way a loop that forks for
//     "nested" agents does (SA-01);
//   - a setting that replaces instead of narrowing: a profile's
//     max_depth is the child's depth budget even when it is above what the
//     parent has left (SA-06).
func init() {
	register(
		Mutant{Name: "semantic/row-depth-left-of-parent", Targets: []string{"SA-06", "SA-10"},
			Breaks: "a child's session_meta row reports its parent's remaining_depth instead of its own",
			Apply:  withSubagents(rowOf{parentDepth: true})},
		Mutant{Name: "semantic/row-budget-of-parent", Targets: []string{"TA-07"},
			Breaks: "a child's session_meta row reports its parent's remaining cost budget instead of its own",
			Apply:  withSubagents(rowOf{parentBudget: true})},
		Mutant{Name: "semantic/row-depth-from-one", Targets: []string{"SA-05", "SA-13"},
			Breaks: "depth is counted from 1 below the root: a child's row says depth 2, a grandchild's 3",
			Apply:  withSubagents(rowOf{depthPlusOne: true})},
		Mutant{Name: "semantic/grandchild-forks-history", Targets: []string{"SA-01"},
			Breaks: "a session below a child starts from its parent's history although its profile does not opt in",
			Apply:  withSubagents(nestedFork{})},
		Mutant{Name: "semantic/profile-depth-replaces", Targets: []string{"SA-06"},
			Breaks: "a profile's max_depth becomes the child's depth budget even when it exceeds what the parent has left",
			Apply:  withSubagents(profileDepthReplaces{})},
	)
}

func withSubagents(pol subagent.Policy) func(loop.Parts) loop.Parts {
	return func(p loop.Parts) loop.Parts {
		p.Subagents = pol
		return p
	}
}

type rowOf struct {
	subagent.Standard
	parentDepth, parentBudget, depthPlusOne bool
}

func (r rowOf) Row(n *subagent.Node, m wire.SessionMeta) *wire.SessionMeta {
	if n.Parent == nil {
		return &m
	}
	switch {
	case r.parentDepth:
		d := n.Parent.RemainingDepth
		m.RemainingDepth = &d
	case r.parentBudget:
		m.RemainingCostBudgetUSD = n.Parent.Remainder()
	case r.depthPlusOne:
		m.Depth++
	}
	return &m
}

type nestedFork struct{ subagent.Standard }

func (nestedFork) History(parent *subagent.Node, prof wire.ChildProfile, prompt string) []wire.Message {
	if parent.Parent != nil {
		prof.ForkParentHistory = true
	}
	return subagent.Standard{}.History(parent, prof, prompt)
}

type profileDepthReplaces struct{ subagent.Standard }

func (profileDepthReplaces) ChildDepth(parent int, prof wire.ChildProfile, hint *int) int {
	if prof.MaxDepth != nil {
		parent = *prof.MaxDepth + 1
	}
	return subagent.Standard{}.ChildDepth(parent, prof, hint)
}

// State shared across sessions (issue 29): a read cache keyed by tool and
// input, kept by the kernel rather than by the session, the way a loop
// memoises data-source calls. A later session that makes the same read
// gets the first session's answer: one session's tool result reaches
// another. The fake tool's per-session markers show it (SA-09).
func init() {
	register(Mutant{Name: "semantic/read-cache-across-sessions", Targets: []string{"SA-09"},
		Breaks: "data_source results are cached by tool and input for the whole kernel, so a session making the same read as another gets that session's answer",
		Apply: func(p loop.Parts) loop.Parts {
			c := &readCache{m: map[string]readCached{}}
			steps := slices.Clone(p.Steps)
			i := slices.IndexFunc(steps, func(s loop.Step) bool { return s.Name == loop.StepDataSources })
			run := steps[i].Run
			steps[i].Run = func(t *loop.Turn) error {
				err := run(t)
				c.apply(t)
				return err
			}
			p.Steps = steps
			return p
		}})
}

type readCached struct {
	session string
	result  wire.ToolResult
}

type readCache struct {
	mu sync.Mutex
	m  map[string]readCached
}

func (c *readCache) apply(t *loop.Turn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, call := range t.ToolCalls() {
		if call.Kind() != wire.KindDataSource || !call.Executed || call.Result == nil || call.Result.IsError {
			continue
		}
		key := call.Use.Name + "\x00" + string(call.Use.Input)
		if hit, ok := c.m[key]; ok && hit.session != t.Session.ID() {
			r := hit.result
			call.Result = &r
			continue
		}
		c.m[key] = readCached{session: t.Session.ID(), result: *call.Result}
	}
}
