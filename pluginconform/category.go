package pluginconform

import (
	"context"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/pluginconform/category"
	"github.com/agentconform/conform/pluginconform/launch"
	"github.com/agentconform/conform/spec"
)

// The tool category: tool providers, which may also be hook subscribers.
func init() {
	category.Register(category.Category{
		Name:    launch.KeyTool,
		Profile: spec.ProfilePlugin,
		Service: "pluggableharness.tool.v1.ToolService",
		Summary: "tool providers and hook subscribers (PL rows)",
		Run: func(ctx context.Context, o category.Options) (*report.Report, Stats, error) {
			return Run(ctx, FromCategory(o))
		},
	})
}

// FromCategory is the tool engine's Options for a category run's.
func FromCategory(o category.Options) Options {
	return Options{
		Argv: o.Argv, Env: o.Env, Config: o.Config, AllowEffects: o.AllowEffects,
		ProcessBacked: o.ProcessBacked, Cases: o.Cases, HookCases: o.HookCases, Seed: o.Seed,
		CallTimeout: o.CallTimeout, HookTimeout: o.HookTimeout, StartTimeout: o.StartTimeout,
		Multiplier: o.Multiplier, Progress: o.Progress, Now: o.Now, Rand: o.Rand,
	}
}
