// Package shard splits a run across machines and folds the pieces back
// into one report.
//
// Spec ("K/N") names one slice of N. Assign gives every selected scenario to
// exactly one slice, deterministically: by count (round robin over the
// scenarios in file:line order) or, when the durations of a previous report
// are known, by recorded time (longest first, each to the lightest slice).
// Seed and Cases do the same for a fuzz campaign: each slice runs its share
// of the cases under a seed of its own, derived from the campaign's.
//
// Merge folds shard reports into one report with report.BuildWith over the
// union of their scenario results, so a requirement covered in several
// shards is decided across all of them by the same rules as a single run.
// It refuses reports from different catalogs, protocol versions, conform
// versions or kernels, a shard given twice or missing, and a scenario
// reported twice: a merge that silently mixed two runs would be a verdict
// nobody ran.
//
// It serves the CI workflow of issue 14; no requirement of the catalog is
// checked here, but every requirement's verdict passes through Merge
// unchanged (TestMergeEqualsSingleRun).
package shard
