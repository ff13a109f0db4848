package contextprov

import (
	"context"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/pluginconform/category"
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/spec"
)

// The context category: `conform plugin --category context`.
func init() {
	category.Register(category.Category{
		Name:    launch.KeyContext,
		Profile: spec.ProfileContextProvider,
		Service: "pluggableharness.context.v1.ContextService",
		Summary: "context providers (CP rows)",
		Run: func(ctx context.Context, o category.Options) (*report.Report, Stats, error) {
			return Run(ctx, FromCategory(o))
		},
	})
}
