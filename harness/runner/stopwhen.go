package runner

import (
	"context"

	"github.com/agentconform/conform/harness/report"
)

// stopper stops a run once Options.StopWhen says so about a finished
// scenario. It only ever cancels the run's own stop context, so what
// follows is exactly an interrupt's: nothing new starts, running sessions
// are abandoned, unrun scenarios are not_run.
type stopper struct {
	when   func(report.ScenarioResult) bool
	cancel context.CancelFunc
}

// stopContext is the stop context the steps watch: Options.Stop, or a
// child of it that StopWhen can cancel.
func stopContext(opt Options) (context.Context, *stopper) {
	st := &stopper{cancel: func() {}}
	if opt.StopWhen == nil {
		return opt.Stop, st
	}
	base := opt.Stop
	if base == nil {
		base = context.Background()
	}
	ctx, cancel := context.WithCancel(base)
	st.when, st.cancel = opt.StopWhen, cancel
	return ctx, st
}

// check is the collector's hook for every finished scenario.
func (s *stopper) check(row report.ScenarioResult) {
	if s.when != nil && s.when(row) {
		s.cancel()
	}
}
