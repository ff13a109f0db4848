package memoryprov

import (
	"context"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/pluginconform/category"
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/spec"
)

// The memory category: `conform plugin --category memory`.
func init() {
	category.Register(category.Category{
		Name:    launch.KeyMemory,
		Profile: spec.ProfileMemoryProvider,
		Service: "pluggableharness.memory.v1.MemoryService",
		Summary: "memory providers (MM rows)",
		Run: func(ctx context.Context, o category.Options) (*report.Report, Stats, error) {
			return Run(ctx, FromCategory(o))
		},
	})
}
