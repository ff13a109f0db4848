package mutants

import (
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/subagent"
)

// One side of a condition (issue 29, SA-10.parent, honest side): a spawn
// is accepted only from a call of the root session, the way a loop that
// lets the top-level agent alone delegate does; a child's honest spawn,
// naming its own session and its call in flight, is refused. Every
// refusal SA-10 asks for still happens.
func init() {
	register(Mutant{Name: "semantic/only-root-spawns", Targets: []string{"SA-10"},
		Breaks: "session/spawn is accepted only when its parent is the root session: a child's spawn naming its own session is refused",
		Apply: func(p loop.Parts) loop.Parts {
			p.Subagents = rootCallerOnly{}
			return p
		}})
}

type rootCallerOnly struct{ subagent.Standard }

func (rootCallerOnly) Caller(parent *subagent.Node, callID string) bool {
	return parent.Parent == nil && subagent.Standard{}.Caller(parent, callID)
}
