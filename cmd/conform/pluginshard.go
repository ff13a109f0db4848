package main

import (
	"fmt"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/shard"
	"github.com/agentconform/conform/pluginconform/category"
	"github.com/agentconform/conform/spec"
)

// A plugin run is cut by its generated cases, not by its checks: a
// category's engine is one sequence of groups whose later groups use what
// earlier ones learnt (the declared capabilities, the models served, the
// records written), so there is no list of independent scenarios to deal
// out the way conform run deals features. What is independent is the
// generated cases of each property: slice K of N runs shard.Cases of
// --cases (and --hook-cases) under shard.Seed(--seed, K), as conform fuzz
// --shard does, so the slices draw different inputs and together run the
// campaign's number.
//
// The fixed checks (declarations, Configure, the error taxonomy, the
// scripted probes) run in every slice. They are the cheaper part of a run
// and a row is often proved by fixed and generated checks together, so a
// slice without them would report most rows not tested and could not be
// read alone; and a plugin that answers a fixed probe differently in two
// slices is caught by the merge, where a row fails if any slice failed it.

// applyPluginShard gives opt slice s's share of the campaign.
func applyPluginShard(opt *category.Options, s shard.Spec, seed uint64, cases, hookCases int) {
	if s.Whole() {
		return
	}
	opt.Cases = shard.Cases(cases, s)
	opt.HookCases = shard.Cases(hookCases, s)
	opt.Seed = shard.Seed(seed, s)
}

// asPluginShard rebuilds a slice's report as a shard report: its groups
// renamed so the slices' groups stay apart when merged (each slice's
// checks count as checks of their own), no compliance claim, and the base
// seed named so conform merge can refuse slices of different campaigns.
func asPluginShard(r *report.Report, profile string, s shard.Spec, seed uint64, cases int) (*report.Report, error) {
	cat, err := spec.LoadProfile(profile)
	if err != nil {
		return nil, err
	}
	scs := make([]report.ScenarioResult, len(r.Scenarios))
	for i, sc := range r.Scenarios {
		sc.File = fmt.Sprintf("%s [shard %s]", sc.File, s)
		scs[i] = sc
	}
	warnings := append([]string{fmt.Sprintf("shard %s of the campaign of --seed %d: %d of --cases %d generated cases per property under seed %d; the fixed checks run in every shard",
		s, seed, shard.Cases(cases, s), cases, shard.Seed(seed, s))}, r.Warnings...)
	out := report.BuildWith(cat, r.Kernel, scs, r.StartedAt, r.Duration, report.BuildOptions{Warnings: warnings, Shard: s.String(), Interrupted: r.Interrupted})
	out.Protocol, out.Tool, out.Stability = r.Protocol, r.Tool, r.Stability
	out.Shard = &report.ShardInfo{K: s.K, N: s.N, Balance: "cases", Scenarios: shard.Cases(cases, s), Selected: cases}
	return out, nil
}
