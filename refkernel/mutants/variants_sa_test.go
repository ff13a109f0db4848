package mutants

import (
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/subagent"
	"github.com/agentconform/conform/spec/wire"
)

// Legal variants of the session tree: correct kernels that read an open
// point of the sub-agent rules another way. The suite must blame none.
func init() {
	registerVariant(
		Variant{Name: "subagents/zero-cap-is-no-cap",
			Reading: "A-25: subagents.max_concurrent 0 means no cap (every spawn starts at once) rather than the kernel's default; a cap of 1 or more is enforced as configured (PROTOCOL.md Subagents)",
			Apply: func(parts loop.Parts) loop.Parts {
				parts.Subagents = zeroCapUnlimited{}
				return parts
			},
			Tags: "@SA-03"},
	)
}

type zeroCapUnlimited struct{ subagent.Standard }

func (zeroCapUnlimited) MaxConcurrent(cfg *wire.Subagents) int {
	if cfg != nil && cfg.MaxConcurrent == 0 {
		return 1 << 16
	}
	return subagent.Standard{}.MaxConcurrent(cfg)
}
