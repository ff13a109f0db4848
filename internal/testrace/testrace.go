package testrace

import "testing"

// SkipUnderRace skips t under the race detector. Call it first in a test
// that runs the suite end to end (or a long single-threaded check) and puts
// no concurrency of its own under test; make e2e runs its package without
// -race (the package must be in the Makefile's E2E_PKGS and the test in
// its E2E_TESTS; TestEveryEndToEndPackageRunsInE2E checks that).
func SkipUnderRace(t testing.TB) {
	t.Helper()
	if Enabled {
		t.Skip("runs without -race in make e2e")
	}
}
