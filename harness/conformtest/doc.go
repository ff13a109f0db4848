// Package conformtest checks a kernel from its own `go test`, in the spirit
// of testing/fstest.TestFS: one entry point runs the whole suite over the
// wire and reports every failing requirement with its scenario, the
// failure text and the recorded log.
//
// It serves every requirement of the catalog: it runs the same scenarios as
// `conform run`, over the same wire.
package conformtest
