package subagent

import (
	"fmt"
	"slices"

	"github.com/agentconform/conform/spec/wire"
)

// Validate refuses a subagents block the kernel cannot honour: a profile
// without a name or named twice, or one listing a tool no provider declares.
func Validate(cfg wire.SessionConfig) error {
	if cfg.Subagents == nil {
		return nil
	}
	seen := map[string]bool{}
	for i, p := range cfg.Subagents.Profiles {
		switch {
		case p.Name == "":
			return fmt.Errorf("subagents.profiles[%d] has no name", i)
		case seen[p.Name]:
			return fmt.Errorf("sub-agent profile %q is declared twice", p.Name)
		}
		seen[p.Name] = true
		if p.MaxTurns != nil && *p.MaxTurns < 1 {
			return fmt.Errorf("sub-agent profile %q: max_turns must be at least 1", p.Name)
		}
		for _, name := range p.Tools {
			if !slices.ContainsFunc(cfg.Tools, func(t wire.ToolSchema) bool { return t.Name == name }) {
				return fmt.Errorf("sub-agent profile %q lists tool %q, which no provider declares", p.Name, name)
			}
		}
	}
	return nil
}
