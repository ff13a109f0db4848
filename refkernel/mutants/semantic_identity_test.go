package mutants

import (
	"encoding/json"

	"github.com/agentconform/conform/refkernel/loop"
)

// Keyed by the wrong field (issue 29, TA-12.identity, tree side): a
// sub-agent's calls are hashed by tool name alone, the way a loop that
// tracks a child's "tool usage" rather than its calls does, so a child
// whose arguments change every time trips the detector. The root's calls
// keep their canonical identity.
func init() {
	register(Mutant{Name: "semantic/child-identity-by-tool", Targets: []string{"TA-12"},
		Breaks: "in a child or grandchild a call's doom-loop identity is its tool name alone, its input left out",
		Apply: func(p loop.Parts) loop.Parts {
			return overStep(p, loop.StepDoomLoop, func(t *loop.Turn, run func(*loop.Turn) error) error {
				if !isChild(t.Session.ID()) {
					return run(t)
				}
				calls := t.ToolCalls()
				saved := make([]json.RawMessage, len(calls))
				for i, c := range calls {
					saved[i], c.Use.Input = c.Use.Input, json.RawMessage(`{}`)
				}
				defer func() {
					for i, c := range calls {
						c.Use.Input = saved[i]
					}
				}()
				return run(t)
			})
		}})
}
