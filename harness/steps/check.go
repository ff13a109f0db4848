package steps

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/cucumber/godog"
)

// A check is a step whose assertion proves one or more requirements. Every
// check names them where it is registered (proves), so a requirement's
// verdict comes only from the checks that name it: a failing check of TA-08
// never fails TA-20 just because both are tagged on one scenario.
//
// Checks never stop a scenario. Each records its outcome and returns nil to
// godog, so every check of a scenario runs and is reported, the way
// fstest.TestFS collects every failure instead of stopping at the first.
// Setup steps still stop the scenario when they fail: a broken scenario is a
// harness error, not a verdict.

// CheckStatus is the outcome of one check.
type CheckStatus string

// Check outcomes.
const (
	CheckPass CheckStatus = "pass"
	CheckFail CheckStatus = "fail"
	// CheckNotReached: the check could not be evaluated because the session
	// never reached the point it looks at (often because of another
	// requirement's failure). Never a pass, never a fail.
	CheckNotReached CheckStatus = "not_reached"
	// CheckUnverifiable: what the check looks at cannot be observed over the
	// wire in this run. Never a pass.
	CheckUnverifiable CheckStatus = "unverifiable"
)

// CheckOutcome is one check's result in one scenario.
type CheckOutcome struct {
	// Step is the step text as written in the scenario.
	Step string
	// StepNode is the Gherkin AST node id of the step, for its line.
	StepNode string
	// Proves is the requirement IDs the check's assertion proves in this
	// scenario: the IDs its registration names that the scenario is tagged
	// with. Empty means the check proves none of the scenario's
	// requirements, which is a defect of the scenario.
	Proves []string
	// Declared is every ID the registration names.
	Declared []string
	Status   CheckStatus
	Message  string
	// Glue: not reached because of conform's bridge, not the loop
	// (glueNotReached).
	Glue bool
}

// notReachedError marks a check whose subject never happened; glue when
// it is the harness's own glue that cannot see it (an agent bridged by a
// profile that relays none of its hooks at that point), not the loop.
type notReachedError struct {
	why  string
	glue bool
}

func (e *notReachedError) Error() string { return e.why }

// notReached says the check cannot be evaluated: what it looks at (the nth
// request, a final-answer turn, an optional field) is not there.
func notReached(format string, args ...any) error {
	return &notReachedError{why: fmt.Sprintf(format, args...)}
}

// glueNotReached is notReached because conform's bridge cannot see what the
// check looks at: the report labels it glue, never the agent's.
func glueNotReached(why string) error { return &notReachedError{why: why, glue: true} }

// isGlue reports whether err is a check not reached because of glue.
func isGlue(err error) bool {
	var nr *notReachedError
	return errors.As(err, &nr) && nr.glue
}

// unverifiableError marks a check that cannot see its subject over the wire.
type unverifiableError struct{ why string }

func (e *unverifiableError) Error() string { return e.why }

func unverifiable(format string, args ...any) error {
	return &unverifiableError{why: fmt.Sprintf(format, args...)}
}

// notApplicableError marks a check whose premise is something optional the
// kernel does not offer: a payload it does not send, a reading it does not
// declare. Such a check is not recorded at all, so that it neither passes
// nor leaves its requirement not reached: the requirement is judged by the
// scenario's other checks, which assert what every kernel must do, exactly
// as for a kernel before the check existed.
type notApplicableError struct{ why string }

func (e *notApplicableError) Error() string { return e.why }

func notApplicable(format string, args ...any) error {
	return &notApplicableError{why: fmt.Sprintf(format, args...)}
}

// scenarioDefectError marks a check that found its own scenario ill-formed:
// a check before the session ran, a bound or a table it reads that the
// scenario never set. The check is not recorded; the scenario's status is
// error, naming the defect, so a custom feature file or a shrunk fuzz case
// never blames the kernel for its own mistake.
type scenarioDefectError struct{ why string }

func (e *scenarioDefectError) Error() string { return e.why }

func scenarioDefect(format string, args ...any) error {
	return &scenarioDefectError{why: fmt.Sprintf(format, args...)}
}

// splitError is one check whose assertion has a different outcome for some
// of the requirements it proves: the blamed ones get err, the others get
// rest (nil: pass). A kernel that declares it cannot apply transforms fails
// the row that needs the change applied, while the rows about the chain
// itself are read from the chain's own answers.
type splitError struct {
	blamed []string
	err    error
	rest   error
}

func (e *splitError) Error() string { return e.err.Error() }

// blameOnly says that err is the verdict for the blamed requirements only;
// the check's other requirements get rest instead.
func blameOnly(blamed []string, err, rest error) error {
	return &splitError{blamed: blamed, err: err, rest: rest}
}

// classify turns a check's returned error into its outcome.
func classify(err error) (CheckStatus, string) {
	var nr *notReachedError
	var uv *unverifiableError
	switch {
	case err == nil:
		return CheckPass, ""
	case errors.As(err, &nr):
		return CheckNotReached, err.Error()
	case errors.As(err, &uv):
		return CheckUnverifiable, err.Error()
	default:
		return CheckFail, err.Error()
	}
}

var errorType = reflect.TypeFor[error]()

// proves wraps a check function so that its outcome is recorded against the
// requirement IDs named here, and the scenario goes on whatever the outcome.
// fn may have any signature godog accepts for a step returning error; the
// wrapper has the same parameters, so godog converts the step's arguments as
// before.
func (s *Scenario) proves(fn any, ids ...string) any {
	if len(ids) == 0 {
		panic("steps: a check must name the requirements it proves")
	}
	v := reflect.ValueOf(fn)
	t := v.Type()
	if t.Kind() != reflect.Func || t.NumOut() != 1 || t.Out(0) != errorType {
		panic(fmt.Sprintf("steps: a check must be a func returning error, got %T", fn))
	}
	declared := slices.Clone(ids)
	return reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		out := v.Call(args)
		err, _ := out[0].Interface().(error)
		s.record(declared, err)
		return []reflect.Value{reflect.Zero(errorType)}
	}).Interface()
}

// record files one check's outcome under the current step; a split
// outcome files one per group of requirements.
func (s *Scenario) record(declared []string, err error) {
	var na *notApplicableError
	if errors.As(err, &na) {
		return
	}
	var split *splitError
	isSplit := errors.As(err, &split)
	var sd *scenarioDefectError
	if errors.As(err, &sd) || (isSplit && (errors.As(split.err, &sd) || errors.As(split.rest, &sd))) {
		if s.Defect == "" {
			s.Defect = s.where() + sd.why
		}
		return
	}
	if !isSplit {
		s.Checks = append(s.Checks, s.outcome(declared, declared, err))
		return
	}
	blamed := s.outcome(declared, split.blamed, split.err)
	rest := s.outcome(declared, slices.DeleteFunc(slices.Clone(declared), func(id string) bool {
		return slices.Contains(split.blamed, id)
	}), split.rest)
	// Each group that proves something here gets its entry; when neither
	// does, one entry stays so the attribution lint sees a check that
	// proves nothing.
	switch {
	case len(blamed.Proves) == 0:
		s.Checks = append(s.Checks, rest)
	case len(rest.Proves) == 0:
		s.Checks = append(s.Checks, blamed)
	default:
		s.Checks = append(s.Checks, blamed, rest)
	}
}

// where names the current step for a scenario defect.
func (s *Scenario) where() string {
	if s.step == nil {
		return ""
	}
	return fmt.Sprintf("step %q: ", s.step.Text)
}

// outcome is err as the outcome of the check for the IDs of ids the
// scenario is tagged with.
func (s *Scenario) outcome(declared, ids []string, err error) CheckOutcome {
	status, msg := classify(err)
	o := CheckOutcome{Declared: declared, Status: status, Message: msg, Glue: isGlue(err)}
	if s.step != nil {
		o.Step = s.step.Text
		if len(s.step.AstNodeIds) > 0 {
			o.StepNode = s.step.AstNodeIds[0]
		}
	}
	for _, id := range ids {
		if s.tagged[id] && slices.Contains(declared, id) {
			o.Proves = append(o.Proves, id)
		}
	}
	return o
}

// setTags remembers the scenario's requirement tags for attribution.
func (s *Scenario) setTags(p *godog.Scenario) {
	s.tagged = map[string]bool{}
	for _, t := range p.Tags {
		s.tagged[strings.TrimPrefix(t.Name, "@")] = true
	}
}

// Observation is behaviour the specification says to record without
// judging. It never changes a verdict.
type Observation struct {
	// Subject is the requirement ID or ambiguity (A-xx) it relates to.
	Subject string
	What    string
}

// observe records what was seen about subject.
func (s *Scenario) observe(subject, format string, args ...any) {
	s.Observations = append(s.Observations, Observation{Subject: subject, What: fmt.Sprintf(format, args...)})
}
