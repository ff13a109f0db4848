// Package runner runs the conformance scenarios against a kernel and builds
// the report: it validates the feature files (file, line and reason for any
// defect, unknown requirement IDs included), asks the kernel what it
// declares, runs every scenario through godog with the step library, and
// turns each scenario's outcome into an honest verdict.
package runner
