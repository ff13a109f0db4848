package report

// The sections below say how a report came to be when it is not one plain
// run: a slice of a run (conform run --shard), a fold of several reports
// (conform merge), or a run judged against a baseline of known failures
// (--baseline). None of them changes a verdict: the baseline changes only
// which failures fail the CI gate, and says so.

// ShardInfo says the report covers one slice of its selection.
type ShardInfo struct {
	// K is the slice (1-based), N how many slices the run was cut into.
	K int `json:"k"`
	N int `json:"n"`
	// Balance is "count" (round robin) or "duration" (by the recorded
	// durations of a previous report).
	Balance string `json:"balance"`
	// Scenarios is how many scenarios this slice ran, Selected how many the
	// whole selection holds.
	Scenarios int `json:"scenarios"`
	Selected  int `json:"selected"`
}

// MergeInfo says the report was folded from others.
type MergeInfo struct {
	// Sources name the merged reports, in the order given.
	Sources []MergedSource `json:"sources"`
}

// MergedSource is one report a merge folded in.
type MergedSource struct {
	File      string `json:"file"`
	Shard     string `json:"shard,omitempty"`
	Scenarios int    `json:"scenarios"`
}

// BaselineResult is the run judged against a baseline of known failures.
type BaselineResult struct {
	// File is the baseline as given on the command line.
	File string `json:"file"`
	// Strict: a stale entry fails the run (--strict-baseline).
	Strict bool `json:"strict"`
	// ExpectedFail are listed failures that still fail: they do not fail
	// the run, and stay visible here and in the requirement's own verdict.
	ExpectedFail []BaselineItem `json:"expected_fail"`
	// Stale are listed items that no longer fail: the baseline should
	// shrink. With Strict they fail the run.
	Stale []BaselineItem `json:"stale"`
	// Unchecked are listed items this run did not check (a selection, a
	// shard, a skipped or untested requirement): neither stale nor expected.
	Unchecked []BaselineItem `json:"unchecked"`
	// Unlisted are failures the baseline does not cover: they fail the run
	// as they would without a baseline (at the --require level).
	Unlisted []BaselineItem `json:"unlisted"`
}

// BaselineItem is one requirement (optionally one scenario of it) as the
// baseline lists it, or as the run found it.
type BaselineItem struct {
	ID string `json:"id"`
	// Scenarios are the scenarios, as file:line, the entry names or the
	// run found failing.
	Scenarios []string `json:"scenarios,omitempty"`
	// Status is the requirement's verdict in this run.
	Status Status `json:"status"`
	// Reason and Link are the baseline's own words for the entry.
	Reason string `json:"reason,omitempty"`
	Link   string `json:"link,omitempty"`
	// Note says what the run showed of the entry.
	Note string `json:"note,omitempty"`
}
