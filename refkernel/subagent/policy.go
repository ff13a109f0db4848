package subagent

import (
	"context"
	"slices"

	"github.com/agentconform/conform/spec/wire"
)

// Kernel defaults for an unset subagents block.
const (
	DefaultMaxDepth      = 1
	DefaultMaxConcurrent = 4
)

// Policy is the swappable sub-agent part: each method is one decision of the
// session tree. Mutants replace single methods by embedding Standard.
type Policy interface {
	// RootDepth is a root session's depth budget.
	RootDepth(cfg *wire.Subagents) int
	// ChildDepth is a child's depth budget, from its parent's budget, its
	// profile and the caller's hint (nil: none).
	ChildDepth(parent int, prof wire.ChildProfile, hint *int) int
	// ChildBudget is a child's cost budget (nil: unlimited), from what its
	// parent has left, its profile and the caller's hint.
	ChildBudget(parentRemainder *float64, prof wire.ChildProfile, hint *float64) *float64
	// Tools is a session's tool registry: a root's (prof nil) from every
	// declared tool, or a child's from its profile, narrowed to the caller's
	// scoped providers when it names any.
	Tools(all []wire.ToolSchema, prof *wire.ChildProfile, scoped []string, remainingDepth int) []wire.ToolSchema
	// History is a child's first history.
	History(parent *Node, prof wire.ChildProfile, prompt string) []wire.Message
	// MaxConcurrent is how many children of one parent run at once.
	MaxConcurrent(cfg *wire.Subagents) int
	// ChildContext is the context a new child runs under.
	ChildContext(parent context.Context, child *Node) (context.Context, context.CancelFunc)
	// Payers are the sessions one usage of n is debited from.
	Payers(n *Node) []*Node
	// Caller reports whether the spawn with this call id may name parent as
	// its parent session.
	Caller(parent *Node, callID string) bool
	// Join reports whether a spawn is answered only once the child ended.
	Join() bool
	// EndStatus is the status a session reports when it ended with status.
	EndStatus(n *Node, status string) string
	// Row is the session_meta row as reported; nil reports none.
	Row(n *Node, m wire.SessionMeta) *wire.SessionMeta
	// Returned are the messages a finished child adds to its parent's
	// history besides the spawn tool's result.
	Returned(parent *Node, child []wire.Message) []wire.Message
}

// Standard is the reference policy.
type Standard struct{}

var _ Policy = Standard{}

// RootDepth implements Policy: max_depth, or the kernel default.
func (Standard) RootDepth(cfg *wire.Subagents) int {
	if cfg == nil {
		return DefaultMaxDepth
	}
	return cfg.MaxDepth
}

// ChildDepth implements Policy: min(parent − 1, profile max_depth, hint).
func (Standard) ChildDepth(parent int, prof wire.ChildProfile, hint *int) int {
	d := parent - 1
	if prof.MaxDepth != nil {
		d = min(d, *prof.MaxDepth)
	}
	if hint != nil {
		d = min(d, *hint)
	}
	return d
}

// ChildBudget implements Policy: min(parent's remainder, profile cap, hint).
func (Standard) ChildBudget(parentRemainder *float64, prof wire.ChildProfile, hint *float64) *float64 {
	return minBudget(minBudget(parentRemainder, prof.MaxCostUSD), hint)
}

func minBudget(a, b *float64) *float64 {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil:
		v := *b
		return &v
	case b == nil:
		v := *a
		return &v
	}
	v := min(*a, *b)
	return &v
}

// Tools implements Policy. Spawn-capable tools are left out at a depth
// budget of zero or less (SA-06); a child gets only what its profile lists,
// so it spawns only when the profile lists a spawn-capable tool (SA-07,
// SA-15); scoped providers narrow, never widen (SA-10).
func (Standard) Tools(all []wire.ToolSchema, prof *wire.ChildProfile, scoped []string, remainingDepth int) []wire.ToolSchema {
	out := []wire.ToolSchema{}
	for _, t := range all {
		switch {
		case t.SpawnCapable && remainingDepth <= 0:
		case prof != nil && !slices.Contains(prof.Tools, t.Name):
		case prof != nil && len(scoped) > 0 && !slices.Contains(scoped, t.Provider):
		default:
			out = append(out, t)
		}
	}
	return out
}

// History implements Policy: the prompt alone (SA-01), after the parent's
// history only when the profile opts in (SA-02).
func (Standard) History(parent *Node, prof wire.ChildProfile, prompt string) []wire.Message {
	var out []wire.Message
	if prof.ForkParentHistory {
		out = parent.History()
	}
	return append(out, UserText(prompt))
}

// MaxConcurrent implements Policy.
func (Standard) MaxConcurrent(cfg *wire.Subagents) int {
	if cfg == nil || cfg.MaxConcurrent <= 0 {
		return DefaultMaxConcurrent
	}
	return cfg.MaxConcurrent
}

// ChildContext implements Policy: a child lives inside its parent's context,
// so cancelling any session cancels its whole subtree (SA-08).
func (Standard) ChildContext(parent context.Context, _ *Node) (context.Context, context.CancelFunc) {
	return context.WithCancel(parent)
}

// Payers implements Policy: the spender and every ancestor up to the root
// (TA-07).
func (Standard) Payers(n *Node) []*Node {
	var out []*Node
	for ; n != nil; n = n.Parent {
		out = append(out, n)
	}
	return out
}

// Caller implements Policy: the call must be a spawn-capable tool/invoke of
// the named parent that is in flight right now.
func (Standard) Caller(parent *Node, callID string) bool {
	t, ok := parent.InFlight(callID)
	return ok && t.SpawnCapable
}

// Join implements Policy.
func (Standard) Join() bool { return true }

// EndStatus implements Policy.
func (Standard) EndStatus(_ *Node, status string) string { return status }

// Row implements Policy.
func (Standard) Row(_ *Node, m wire.SessionMeta) *wire.SessionMeta { return &m }

// Returned implements Policy: nothing but the tool result crosses back
// (SA-12).
func (Standard) Returned(*Node, []wire.Message) []wire.Message { return nil }

// UserText is a user message with one text block.
func UserText(s string) wire.Message {
	return wire.Message{Role: "user", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: s}}}
}
