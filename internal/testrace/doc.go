// Package testrace splits the unit tests between the race detector and a
// plain run (issue 25). A test that runs the conformance suite end to end
// (every scenario against a kernel, a Python or plugin subprocess, a CLI
// run of the whole suite, a property campaign) or a long single-threaded
// check calls SkipUnderRace first: under -race (make unit) it is skipped,
// because the detector only slows what it adds nothing to — the concurrency
// of the harness and the kernels is race-tested by their own packages and
// by the concurrency scenarios of harness/conformtest — and make e2e runs
// exactly those tests without -race (E2E_TESTS in E2E_PKGS), so no check
// leaves make test and none runs twice. Serves no
// requirement of the catalog; it is test plumbing.
package testrace
