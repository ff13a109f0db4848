// Package conformtest checks a kernel from its own `go test`, in the spirit
// of testing/fstest.TestFS: one entry point runs the whole suite over the
// wire and reports every failing requirement with its scenario, the
// failure text and the recorded log. Like nettest.TestConn it reports a
// subtest per requirement (go test -run 'TestKernel/TA-02' checks one, and
// runs only its scenarios), runs under the test's context, stopped before
// go test's -timeout so that its kernels are shut down, and takes the
// timeout multiplier and parallelism conform run has.
//
// It serves every requirement of the catalog: it runs the same scenarios as
// `conform run`, over the same wire.
//
// Its own tests keep the suite honest: TestReferenceKernel's attribution subtest (every check proves
// a requirement of its scenario) and its clause map subtest (every clause of
// spec/clauses.json has a check, both sides of each condition and, per
// session, a check in a tree, or a known gap), which also keeps
// reports/clauses.md current.
package conformtest
