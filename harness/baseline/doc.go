// Package baseline reads, applies and writes a baseline of known failures,
// so that a kernel can put conform in front of every pull request before
// it passes everything.
//
// A baseline (JSON or YAML, spec/baseline.schema.json) lists requirement
// IDs, optionally narrowed to some of their scenarios, each with a reason
// and a tracking link. Apply never changes a verdict: a listed failure
// stays a failure in every report and is also named expected_fail in the
// report's baseline section; Gate then leaves it out of the CI gate. A
// listed item that no longer fails is stale (the baseline should shrink),
// and fails the gate under --strict-baseline. An unlisted failure fails the
// gate exactly as it would without a baseline.
//
// A partial run (a tag selection, a shard, an interrupted run) cannot tell
// that a requirement now passes everywhere: its passing listed requirements
// are unchecked, not stale, and the merged report decides.
//
// It serves the CI workflow of issue 14; it judges no requirement itself.
package baseline
