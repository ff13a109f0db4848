// Package fuzz is conform's property engine (`conform fuzz`). It generates
// whole sessions with rapid: per-request model scripts that mix replies
// without tool calls and calls of every kind (reads, resources, interactive
// calls, a terminal resource, a held read) with repeated and varied
// arguments, usage figures and price lists of one to three tiers (split by
// input tokens or by time, or free), and bounds of each dimension with
// doom-loop thresholds; telemetry is on in a quarter of them (no invariant
// reads a span, and exporting them is a fifth of a session). Each case becomes a one-scenario feature file built
// from the step library only; it runs against the kernel like any scenario,
// and ends with the loop invariants of harness/steps (invariants.go): the
// step grammar of every turn, at most max_turns + 1 model requests, exactly
// one tool-less request after a fired bound with the status naming the
// bound that fired first, the doom loop firing exactly when the last
// threshold calls are identical, costs that follow the declared pricing
// and add up, and one end of the session.
//
// Each invariant proves one requirement (steps.Invariants, Case.Checks),
// and the feature is tagged with exactly those requirements, so a broken
// invariant fails its own requirement and no other. A failure is shrunk by
// rapid to a minimal session that still fails the same requirement, and
// written out as that feature file, so a kernel author re-runs exactly that
// case with `conform run --features DIR`. Serves TA-01, TA-02, TA-03,
// TA-04, TA-06, TA-08, TA-10, TA-12, TA-18, TA-19, TA-20, TA-21, TA-23,
// TA-24, TA-25, TA-26 and TA-27.
//
// A case runs from its lines (Case.Lines, runner.Lines): the same step
// library and the same report building as a feature run, without godog's
// per-scenario parse, registration and pattern matching, on kernels kept
// across cases. Its feature file is those lines written out, so the file
// reproduces what the run found; Options.ViaFeatures runs every case
// through godog instead, and TestFuzzFindsTheSameViaFeatures
// (refkernel/mutants) holds the two to the same finding and shrunk case.
// The search draws the cases rapid's own search would, in its order of
// seeds, and may run several at once (Options.Workers); the first failing
// case is handed to rapid to run again and shrink (explore.go).
//
// The invariants are judged against the replies the fake model really sent
// and the kernel's declared readings; where the spec is open (A-01..A-14)
// they accept every reasonable reading (see invariants.go).
package fuzz
