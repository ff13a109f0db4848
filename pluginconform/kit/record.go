package kit

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/spec"
)

// Scenario collects the checks of one group (a "scenario" in the kernel
// suite's report model): each check names the requirements it proves, and
// a requirement's verdict comes only from the checks that name it.
type Scenario struct {
	Res   report.ScenarioResult
	lines *int
	start time.Time
	now   func() time.Time
	err   string
	skip  string
	// judged is the run's record of requirements some check passed or
	// failed.
	judged map[string]bool
}

// Recorder keeps a run's scenarios in order.
type Recorder struct {
	lines int
	now   func() time.Time
	scens []report.ScenarioResult
	// Judged are the requirements some check gave a pass or a fail.
	Judged map[string]bool
	// Progress, when set, gets one line per finished scenario.
	Progress io.Writer
}

// NewRecorder returns an empty recorder on the clock now.
func NewRecorder(now func() time.Time, progress io.Writer) *Recorder {
	return &Recorder{now: now, Judged: map[string]bool{}, Progress: progress}
}

// Scenario starts a group of checks. A scenario's line is its place in the
// run, and a check's line is 1000 times that plus its place in the
// scenario: both stay the same from run to run however many checks the
// scenarios before made, so --repeat compares like with like.
func (r *Recorder) Scenario(file, name string, reqs ...string) *Scenario {
	r.lines++
	return &Scenario{
		Res:    report.ScenarioResult{File: file, Line: r.lines, Name: name, Requirements: slices.Clone(reqs), Started: r.now()},
		lines:  &r.lines,
		start:  r.now(),
		now:    r.now,
		judged: r.Judged,
	}
}

// Add finishes s and keeps its result.
func (r *Recorder) Add(s *Scenario) {
	res := s.Finish()
	r.scens = append(r.scens, res)
	if r.Progress != nil {
		fmt.Fprintf(r.Progress, "%-12s %s\n", res.Status, res.Name)
	}
}

// Redacted returns the scenarios with redact applied to every text the
// plugin may have put in them.
func (r *Recorder) Redacted(redact func(string) string) []report.ScenarioResult {
	out := slices.Clone(r.scens)
	for i := range out {
		out[i].Failure = redact(out[i].Failure)
		out[i].Checks = slices.Clone(out[i].Checks)
		for j := range out[i].Checks {
			out[i].Checks[j].Message = redact(out[i].Checks[j].Message)
		}
		out[i].Observations = slices.Clone(out[i].Observations)
		for j := range out[i].Observations {
			out[i].Observations[j].What = redact(out[i].Observations[j].What)
		}
	}
	return out
}

// Add records a check of the given status.
func (s *Scenario) Add(st report.Status, step, msg string, reqs ...string) {
	line := s.Res.Line*1000 + len(s.Res.Checks) + 1
	for _, id := range reqs {
		if !slices.Contains(s.Res.Requirements, id) {
			s.Res.Requirements = append(s.Res.Requirements, id)
		}
	}
	if st == report.Pass || st == report.Fail {
		for _, id := range reqs {
			s.judged[id] = true
		}
	}
	s.Res.Checks = append(s.Res.Checks, report.CheckResult{Step: step, Line: line, Requirements: slices.Clone(reqs), Status: st, Message: msg})
}

// Pass records a passing check.
func (s *Scenario) Pass(step string, reqs ...string) { s.Add(report.Pass, step, "", reqs...) }

// Fail records a failing check.
func (s *Scenario) Fail(step, msg string, reqs ...string) { s.Add(report.Fail, step, msg, reqs...) }

// NotReached records a check the run could not reach: no verdict.
func (s *Scenario) NotReached(step, why string, reqs ...string) {
	s.Add(report.NotReached, step, why, reqs...)
}

// Unverifiable records a check the wire cannot answer.
func (s *Scenario) Unverifiable(step, why string, reqs ...string) {
	s.Add(report.Unverifiable, step, why, reqs...)
}

// Check records pass when msg is empty, fail otherwise.
func (s *Scenario) Check(step, msg string, reqs ...string) {
	if msg == "" {
		s.Pass(step, reqs...)
		return
	}
	s.Fail(step, msg, reqs...)
}

// Errorf ends the scenario in error: the plugin crashed, hung or broke the
// protocol, so no verdict can be drawn from it.
func (s *Scenario) Errorf(format string, args ...any) {
	if s.err == "" {
		s.err = fmt.Sprintf(format, args...)
	}
}

// Skipf marks the scenario skipped: an optional feature the plugin does
// not have.
func (s *Scenario) Skipf(format string, args ...any) { s.skip = fmt.Sprintf(format, args...) }

// Observe records what was seen without judging it.
func (s *Scenario) Observe(subject, what string) {
	s.Res.Observations = append(s.Res.Observations, report.Observation{Subject: subject, What: what})
}

// Finish sets the scenario's status from its checks.
func (s *Scenario) Finish() report.ScenarioResult {
	s.Res.Duration = s.now().Sub(s.start)
	switch {
	case s.err != "":
		s.Res.Status, s.Res.Failure = report.Error, s.err
	case s.skip != "":
		s.Res.Status, s.Res.Failure = report.Skipped, s.skip
	default:
		// A scenario that ran speaks for a requirement only through its
		// checks: one it planned to judge but had nothing for (no error was
		// sent, say) is left out rather than shown as an empty check.
		s.Res.Requirements = slices.DeleteFunc(s.Res.Requirements, func(id string) bool {
			return !slices.ContainsFunc(s.Res.Checks, func(c report.CheckResult) bool { return slices.Contains(c.Requirements, id) })
		})
		s.Res.Status = report.NotReached
		for _, c := range s.Res.Checks {
			switch c.Status {
			case report.Fail:
				s.Res.Status, s.Res.Failure = report.Fail, c.Message
			case report.Pass:
				if s.Res.Status == report.NotReached {
					s.Res.Status = report.Pass
				}
			case report.Unverifiable:
				if s.Res.Status == report.NotReached {
					s.Res.Status = report.Unverifiable
				}
			}
			if s.Res.Status == report.Fail {
				break
			}
		}
	}
	return s.Res
}

// ProfileIDs are the requirement IDs of a plugin-category profile, in
// catalog order, from spec.LoadProfile (nil if the catalog does not load,
// which every test of the embedded catalog rules out).
func ProfileIDs(profile string) []string {
	cat, err := spec.LoadProfile(profile)
	if err != nil {
		return nil
	}
	return cat.IDs()
}
