package pluginconform

import (
	"fmt"
	"slices"
	"time"

	"github.com/agentconform/conform/harness/report"
)

// scenario collects the checks of one group (a "scenario" in the kernel
// suite's report model): each check names the requirements it proves, and
// a requirement's verdict comes only from the checks that name it.
type scenario struct {
	res   report.ScenarioResult
	lines *int
	start time.Time
	now   func() time.Time
	err   string
	skip  string
	// judged is the run's record of requirements some check passed or
	// failed.
	judged map[string]bool
}

// A scenario's line is its place in the run, and a check's line is
// 1000 times that plus its place in the scenario: both stay the same from
// run to run however many checks the scenarios before made, so --repeat
// compares like with like.
func (r *run) scenario(file, name string, reqs ...string) *scenario {
	*r.lines++
	return &scenario{
		res:    report.ScenarioResult{File: file, Line: *r.lines, Name: name, Requirements: slices.Clone(reqs), Started: r.now()},
		lines:  r.lines,
		start:  r.now(),
		now:    r.now,
		judged: r.judged,
	}
}

func (s *scenario) add(st report.Status, step, msg string, reqs ...string) {
	line := s.res.Line*1000 + len(s.res.Checks) + 1
	for _, id := range reqs {
		if !slices.Contains(s.res.Requirements, id) {
			s.res.Requirements = append(s.res.Requirements, id)
		}
	}
	if st == report.Pass || st == report.Fail {
		for _, id := range reqs {
			s.judged[id] = true
		}
	}
	s.res.Checks = append(s.res.Checks, report.CheckResult{Step: step, Line: line, Requirements: slices.Clone(reqs), Status: st, Message: msg})
}

func (s *scenario) pass(step string, reqs ...string) { s.add(report.Pass, step, "", reqs...) }

func (s *scenario) fail(step, msg string, reqs ...string) { s.add(report.Fail, step, msg, reqs...) }

func (s *scenario) notReached(step, why string, reqs ...string) {
	s.add(report.NotReached, step, why, reqs...)
}

func (s *scenario) unverifiable(step, why string, reqs ...string) {
	s.add(report.Unverifiable, step, why, reqs...)
}

// check records pass when msg is empty, fail otherwise.
func (s *scenario) check(step, msg string, reqs ...string) {
	if msg == "" {
		s.pass(step, reqs...)
		return
	}
	s.fail(step, msg, reqs...)
}

// errorf ends the scenario in error: the plugin crashed, hung or broke the
// protocol, so no verdict can be drawn from it.
func (s *scenario) errorf(format string, args ...any) {
	if s.err == "" {
		s.err = fmt.Sprintf(format, args...)
	}
}

// skipf marks the scenario skipped: an optional feature the plugin does
// not have.
func (s *scenario) skipf(format string, args ...any) { s.skip = fmt.Sprintf(format, args...) }

func (s *scenario) observe(subject, what string) {
	s.res.Observations = append(s.res.Observations, report.Observation{Subject: subject, What: what})
}

// finish sets the scenario's status from its checks.
func (s *scenario) finish() report.ScenarioResult {
	s.res.Duration = s.now().Sub(s.start)
	switch {
	case s.err != "":
		s.res.Status, s.res.Failure = report.Error, s.err
	case s.skip != "":
		s.res.Status, s.res.Failure = report.Skipped, s.skip
	default:
		// A scenario that ran speaks for a requirement only through its
		// checks: one it planned to judge but had nothing for (no error was
		// sent, say) is left out rather than shown as an empty check.
		s.res.Requirements = slices.DeleteFunc(s.res.Requirements, func(id string) bool {
			return !slices.ContainsFunc(s.res.Checks, func(c report.CheckResult) bool { return slices.Contains(c.Requirements, id) })
		})
		s.res.Status = report.NotReached
		for _, c := range s.res.Checks {
			switch c.Status {
			case report.Fail:
				s.res.Status, s.res.Failure = report.Fail, c.Message
			case report.Pass:
				if s.res.Status == report.NotReached {
					s.res.Status = report.Pass
				}
			case report.Unverifiable:
				if s.res.Status == report.NotReached {
					s.res.Status = report.Unverifiable
				}
			}
			if s.res.Status == report.Fail {
				break
			}
		}
	}
	return s.res
}
