package runner

import (
	"time"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/spec"
	"github.com/agentconform/conform/spec/wire"
)

// InitError is a kernel that could not be started or did not complete the
// initialize handshake. Run still returns a report with it.
type InitError struct{ Err error }

func (e *InitError) Error() string {
	return "the kernel could not be started and initialized: " + e.Err.Error()
}

func (e *InitError) Unwrap() error { return e.Err }

// initFailed is the report of a run whose kernel never got past initialize:
// every selected scenario is an error with the reason, as PROTOCOL.md §4
// promises, so a CI gate still gets its JUnit file and sees why.
func initFailed(cat *spec.Catalog, opt Options, refs []ScenarioRef, started time.Time, why error) *report.Report {
	rows := make([]report.ScenarioResult, 0, len(refs))
	for _, ref := range refs {
		rows = append(rows, report.ScenarioResult{
			File: ref.File, Line: ref.Line, Name: ref.Name, Tags: ref.Tags,
			Status: report.Error, Failure: why.Error(),
		})
	}
	r := report.BuildWith(cat, report.Kernel{Name: "(initialize failed)", Command: opt.Launcher.Describe()}, rows, started, time.Since(started),
		report.BuildOptions{Selection: opt.Tags, Warnings: opt.Warnings, Shard: shardName(opt.Shard)})
	r.Tool = toolOf(opt)
	r.Protocol = wire.Version
	r.Shard = shardInfo(opt.Shard, len(refs))
	return r
}
