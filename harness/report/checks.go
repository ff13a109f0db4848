package report

import (
	"slices"
	"strconv"
)

// Check outcomes (CheckResult.Status) besides Pass, Fail and Unverifiable.
const (
	// NotReached: the check could not be evaluated because the session
	// never reached what it looks at. It is never a pass or a fail; a
	// scenario whose checks were all not reached has this status too.
	NotReached Status = "not_reached"
	// NotRun: the run was interrupted before the scenario ran. A scenario
	// status only.
	NotRun Status = "not_run"
)

// CheckResult is one check of a scenario: a step whose assertion proves the
// requirements it names.
type CheckResult struct {
	// Step is the step's text; Line its line in the feature file.
	Step string `json:"step"`
	Line int    `json:"line"`
	// Requirements are the IDs this check proves in its scenario. A
	// requirement's verdict comes only from the checks naming it.
	Requirements []string `json:"requirements"`
	// Status is pass, fail, not_reached or unverifiable.
	Status  Status `json:"status"`
	Message string `json:"message,omitempty"`
	// Glue marks a check not reached because of the harness's own glue
	// (conform agent's bridge cannot see the agent's hooks at that
	// point), not because of the loop.
	Glue bool `json:"glue,omitempty"`
}

// CheckRef points at one check from a requirement's verdict.
type CheckRef struct {
	// Scenario is the scenario as file:line; Line is the check's own line.
	Scenario string `json:"scenario"`
	Line     int    `json:"line"`
	Step     string `json:"step"`
	Message  string `json:"message,omitempty"`
	Glue     bool   `json:"glue,omitempty"` // as CheckResult.Glue
}

// Where returns "file:line" of the check itself (the scenario's file, the
// step's line), or the scenario's reference when the line is unknown.
func (c CheckRef) Where() string {
	if c.Line <= 0 {
		return c.Scenario
	}
	file := c.Scenario
	if i := lastColon(file); i >= 0 {
		file = file[:i]
	}
	return file + ":" + strconv.Itoa(c.Line)
}

func lastColon(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ':' {
			return i
		}
	}
	return -1
}

// Observation is behaviour the specification says to record without
// judging: it never changes a verdict, the exit status or the compliance
// level.
type Observation struct {
	// Subject is the requirement ID or the ambiguity (A-01..A-37) the
	// observation relates to.
	Subject string `json:"subject"`
	// Scenario is where it was seen, as file:line.
	Scenario string `json:"scenario,omitempty"`
	// What was seen.
	What string `json:"what"`
}

// scenarioOutcome is what one scenario says of one requirement.
type scenarioOutcome struct {
	status     Status
	text       string // the first failure, error, skip or unverifiable text
	fails      []CheckRef
	notReached []CheckRef
	unverified []CheckRef
}

// outcomeFor applies the per-check rules to one requirement in one scenario.
// A scenario that did not get as far as its checks (error, skipped, not run)
// speaks for all its requirements alike; one that did speaks for each
// requirement only through the checks that name it: any failing check
// fails it; else any check not reached leaves it not reached, since a pass
// of the requirement's other checks in that scenario would be a pass about
// something that did not happen; else a passing check passes it.
func outcomeFor(s ScenarioResult, id string) scenarioOutcome {
	switch s.Status {
	case Error, Skipped, NotRun:
		return scenarioOutcome{status: s.Status, text: s.Failure}
	}
	if len(s.Checks) == 0 {
		// A hand-assembled result without checks: its status stands for
		// every requirement it names.
		return scenarioOutcome{status: s.Status, text: s.Failure}
	}
	var o scenarioOutcome
	passed := false
	for _, c := range s.Checks {
		if !slices.Contains(c.Requirements, id) {
			continue
		}
		ref := CheckRef{Scenario: s.Ref(), Line: c.Line, Step: c.Step, Message: c.Message, Glue: c.Glue}
		switch c.Status {
		case Pass:
			passed = true
		case Fail:
			o.fails = append(o.fails, ref)
		case Unverifiable:
			o.unverified = append(o.unverified, ref)
		default:
			o.notReached = append(o.notReached, ref)
		}
	}
	switch {
	case len(o.fails) > 0:
		o.status, o.text = Fail, o.fails[0].Message
	case len(o.notReached) > 0:
		// The scenario never got to part of what it tests of id: the
		// checks that did pass (often generic ones, such as the final
		// status) cannot stand for the requirement on their own.
		o.status, o.text = NotReached, o.notReached[0].Message
	case passed:
		o.status = Pass
	case len(o.unverified) > 0:
		o.status, o.text = Unverifiable, o.unverified[0].Message
	default:
		o.status, o.text = NotReached, "no check of this scenario proves "+id
		o.notReached = []CheckRef{{Scenario: s.Ref(), Message: o.text}}
	}
	return o
}

// Stability is what repeated runs of one selection showed (conform run
// --repeat N). Any variation is a finding: a verdict that depends on luck.
type Stability struct {
	Runs int `json:"runs"`
	// Varied is true when any scenario outcome or requirement verdict
	// differed between runs.
	Varied bool `json:"varied"`
	// Scenarios lists every scenario whose outcome varied.
	Scenarios []Variation `json:"scenarios"`
	// Requirements lists every requirement whose verdict varied, with its
	// flake rate: the share of runs that disagreed with the most common
	// verdict.
	Requirements []Flake `json:"requirements"`
}

// Variation is one scenario whose outcome differed between runs.
type Variation struct {
	Scenario string         `json:"scenario"`
	Outcomes map[Status]int `json:"outcomes"`
	Summary  string         `json:"summary"`
}

// Flake is one requirement whose verdict differed between runs.
type Flake struct {
	ID       string         `json:"id"`
	Outcomes map[Status]int `json:"outcomes"`
	Rate     float64        `json:"rate"`
	Summary  string         `json:"summary"`
}

// Message is one recorded message of a scenario's exchange: a request or
// notification the kernel sent, and the harness's answer to a request. It
// carries no payload (see a repro bundle for those), only what a sequence
// diagram or a transcript needs.
type Message struct {
	Seq int `json:"seq"`
	// AtMS is when the message arrived, in milliseconds since the scenario's
	// log started; DoneMS when the harness answered (requests only).
	AtMS   float64  `json:"at_ms"`
	DoneMS *float64 `json:"done_ms,omitempty"`
	// Kind is "request" or "notification".
	Kind    string `json:"kind"`
	Method  string `json:"method"`
	Session string `json:"session,omitempty"`
	// Label is the harness's reading, e.g. "hook pre-model-call O1".
	Label string `json:"label"`
	// Error is the harness's error answer, if any.
	Error string `json:"error,omitempty"`
	// Unanswered is a request the harness never answered.
	Unanswered bool `json:"unanswered,omitempty"`
}
