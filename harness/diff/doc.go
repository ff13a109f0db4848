// Package diff compares two conform reports: which requirement verdicts
// and which scenario outcomes changed between an old run and a new one,
// regressions first, for a terminal and for a pull-request comment.
//
// A regression is anything that now fails or errs and did not before; an
// improvement the reverse; every other change (a pass that became partial,
// a requirement no longer tested, a scenario added or removed) is listed
// apart. Scenarios are matched by file and name, so a scenario that moved
// down its file is the same scenario.
//
// It serves the CI workflow of issue 14; it judges no requirement itself.
package diff
