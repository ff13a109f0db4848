// Package mutants proves that the conformance scenarios can fail. Each
// mutant (in this package's test files) swaps one reference-kernel part for
// a deliberately broken one and names the requirement IDs it breaks;
// TestKillMatrix runs the scenarios tagged with those IDs against it, over
// the same wire as any kernel, and fails when a mutant survives or when a
// MUST/SHOULD requirement that scenarios cover has no mutant at all.
//
// `make mutants` writes the result to reports/tmp/kill-matrix.json and .md
// and fails when the committed reports/kill-matrix.* differ from it;
// `make mutants KILL_OUT=reports` rewrites them.
package mutants
