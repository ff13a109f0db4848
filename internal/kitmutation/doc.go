// Package kitmutation measures how many plausible bugs in the Python and
// Node adapter kits (examples/python-kit, examples/node-kit) the
// conformance suite catches when it judges kernels built on them (issue
// 29): the kits' counterpart of internal/mutation, whose verdicts, scores,
// survivor lists and report writers it reuses.
//
// Mutants come from a tool where one is reachable: the Node kit's from
// Stryker's instrumenter (@stryker-mutator/instrumenter 10.1.1, installed
// by npm ci in examples/node-kit/mutation), which compiles every mutant of
// the kit into one copy switched by __STRYKER_ACTIVE_MUTANT__ and counts
// which mutants' code each process executes. No Python mutation tool is
// reachable from here (PyPI is not), so the Python kit's come from
// pymutate.py, a hundred lines on the standard library's ast carrying over
// internal/mutation's operators (boundary, negate, remove_call, arith,
// const, drop_assign, loop_cut); each mutant is a copy of the kit file in
// a folder of its own, beside copies of the kernels and the self-test, so
// it comes first on their import path.
//
// The Go judge, not Stryker's runner, runs every mutant, so that both kits
// are judged by the same rules: reach (one traced run of every judge
// against the unmutated kit: pyreach.py for Python, Stryker's own counters
// for Node; a mutant no judge executes is a survivor not reached and is
// not run), the baseline, reproduction and timeouts.
//
// Judges, in order, the first that kills ending the mutant's judging: the
// kit's self-test run with CONFORM_KIT_TRANSCRIPT, whose transcript must
// validate against the wire schemas (kittranscript.Check; the self-test's
// own assertions are not a judge: the campaign measures the suite's power,
// not the unit tests'); then conform run against the toy kernel; then
// against the fuller kernel (full_kernel.py, full.mjs), which uses every
// helper the kit exports. A kernel is judged by baseline difference: the
// scenarios it passes against the unmutated kit twice in a row are the
// only ones run (a tagged copy of the feature files, --fail-fast), and a
// mutant is killed when one of them fails or errs, and fails again when
// the failing scenarios run once more (a failure that does not come back
// is noted as unreproduced, not a kill). A run that outlasts its timeout
// (five times the unmutated run of the same judge, at least a minute) runs
// once more with twice the time; timing out again is a kill by timeout.
// A transcript kill is reproduced the same way.
//
// Reach is written by every traced process every 20 ms as well as at exit:
// the harness ends kernels with a signal, which no exit handler sees.
//
// Mutants are judged in a seeded random order, each verdict journaled as
// it comes (-journal), so that a campaign stopped when its time runs out
// leaves a random sample, which -from-journal reports as such. -carry
// takes an earlier journal's kills and mutants that do not compile and
// judges its survivors again (a new check may kill them).
//
// The report's before figure scores the same verdicts without the fuller
// kernel: what the kit's own toy and transcript test catch.
//
// This package serves no requirement ID itself: it measures the suite's
// power over the kits.
package kitmutation
