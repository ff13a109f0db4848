package runner

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v34"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/harness/steps"
)

// collector turns scenario outcomes into report rows.
type collector struct {
	mu        sync.Mutex
	docs      map[string]*messages.GherkinDocument
	undefined map[string]string // pickle id → step text
	outs      []steps.Outcome
	times     map[string]time.Duration
	view      *liveView // nil: no progress
	logLines  int
	rows      []report.ScenarioResult
	keep      map[string]bool // nil: every selected scenario
	lines     map[string]map[string]int
	capture   func(Capture)
	finished  func(report.ScenarioResult) // nil: nothing to tell
	kernelObs func(sessionID string) []report.Observation
}

func (c *collector) add(o steps.Outcome) {
	c.mu.Lock()
	row := c.row(o)
	if c.keep != nil && !c.keep[c.refOf(o.Pickle)] {
		c.mu.Unlock()
		return
	}
	c.rows = append(c.rows, row)
	if c.view != nil {
		c.view.finished(row)
	}
	var cp *Capture
	if c.capture != nil && (row.Status == report.Fail || row.Status == report.Error) {
		cp = c.captured(o, row)
	}
	c.mu.Unlock()
	if cp != nil {
		c.capture(*cp)
	}
	if c.finished != nil {
		c.finished(row)
	}
}

func (c *collector) results() []report.ScenarioResult {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]report.ScenarioResult(nil), c.rows...)
}

// row decides the scenario's status. Order matters: a kernel fault
// outranks a failed check (the check may have failed because of it), and a
// skip is only ever a declared missing capability. A scenario that got to
// its checks carries them, and each requirement's verdict comes from the
// checks that name it (report.Build).
func (c *collector) row(o steps.Outcome) report.ScenarioResult {
	p, s := o.Pickle, o.State
	var tags []string
	for _, t := range p.Tags {
		tags = append(tags, t.Name)
	}
	row := report.ScenarioResult{File: p.Uri, Line: c.line(p), Name: p.Name, Tags: tags, Duration: s.Elapsed(), Started: s.Started()}
	for _, ob := range s.Observations {
		row.Observations = append(row.Observations, report.Observation{Subject: ob.Subject, What: ob.What})
	}
	if c.kernelObs != nil && s.SessionID != "" {
		row.Observations = append(row.Observations, c.kernelObs(s.SessionID)...)
	}
	switch {
	case s.NotRun != "":
		row.Status, row.Failure = report.NotRun, s.NotRun
	case s.Defect != "":
		// The scenario is ill-formed: an error of the scenario, never a
		// verdict on the kernel.
		row.Status, row.Failure = report.Error, "the scenario is ill-formed: "+s.Defect
	case s.Fault != nil:
		row.Status, row.Failure = report.Error, s.Fault.Error()
	case c.undefined[p.Id] != "":
		row.Status, row.Failure = report.Error, "the harness has no step matching: "+c.undefined[p.Id]
	case s.Skip != "":
		row.Status, row.Failure = report.Skipped, s.Skip
	case o.Err != nil && !errors.Is(o.Err, godog.ErrSkip):
		// Checks never return an error to godog, so this is a setup step
		// or the session run itself: the scenario could not be checked.
		row.Status, row.Failure = report.Error, "the scenario could not be set up: "+o.Err.Error()
	default:
		row.Checks = c.checks(p, s.Checks)
		row.Status, row.Failure = checksStatus(row.Checks)
	}
	if row.Status != report.Pass && row.Status != report.NotRun {
		row.Log = s.World.Log.Lines(c.logLines)
		row.Exchange, row.ExchangeOmitted = exchange(s.World.Log, exchangeKept)
	}
	return row
}

// checks converts the step library's outcomes, resolving each step's line.
// A check that proves none of the scenario's requirements keeps an empty
// list, and checksStatus turns the scenario into an error.
func (c *collector) checks(p *godog.Scenario, outs []steps.CheckOutcome) []report.CheckResult {
	res := make([]report.CheckResult, 0, len(outs))
	for _, o := range outs {
		r := report.CheckResult{
			Step: o.Step, Line: c.stepLine(p.Uri, o.StepNode),
			Requirements: append([]string(nil), o.Proves...),
			Status:       report.Status(o.Status), Message: o.Message, Glue: o.Glue,
		}
		res = append(res, r)
	}
	return res
}

// checksStatus is the scenario's status from its checks: fail if any check
// failed; else pass if any passed; else unverifiable or not reached. A check
// that proves none of the scenario's requirements makes the scenario an
// error: such a scenario is malformed and its verdicts would be misplaced.
func checksStatus(cs []report.CheckResult) (report.Status, string) {
	var firstFail, firstUnverifiable, firstNotReached string
	passed := false
	for _, ch := range cs {
		if len(ch.Requirements) == 0 {
			return report.Error, fmt.Sprintf("line %d: the check %q proves none of the scenario's requirements", ch.Line, ch.Step)
		}
		switch ch.Status {
		case report.Fail:
			if firstFail == "" {
				firstFail = ch.Message
			}
		case report.Pass:
			passed = true
		case report.Unverifiable:
			if firstUnverifiable == "" {
				firstUnverifiable = ch.Message
			}
		default:
			if firstNotReached == "" {
				firstNotReached = ch.Message
			}
		}
	}
	switch {
	case firstFail != "":
		return report.Fail, firstFail
	case passed:
		return report.Pass, ""
	case firstUnverifiable != "":
		return report.Unverifiable, firstUnverifiable
	case firstNotReached != "":
		return report.NotReached, firstNotReached
	}
	return report.Error, "the scenario has no check"
}

// stepLine finds a step's line from godog's own parse.
func (c *collector) stepLine(uri, node string) int {
	doc := c.docs[uri]
	if doc == nil || doc.Feature == nil || node == "" {
		return 0
	}
	find := func(sts []*messages.Step) int {
		for _, st := range sts {
			if st.Id == node {
				return int(st.Location.Line)
			}
		}
		return 0
	}
	for _, ch := range doc.Feature.Children {
		switch {
		case ch.Background != nil:
			if l := find(ch.Background.Steps); l > 0 {
				return l
			}
		case ch.Scenario != nil:
			if l := find(ch.Scenario.Steps); l > 0 {
				return l
			}
		case ch.Rule != nil:
			for _, rc := range ch.Rule.Children {
				if rc.Scenario != nil {
					if l := find(rc.Scenario.Steps); l > 0 {
						return l
					}
				}
			}
		}
	}
	return 0
}

// line finds the scenario's (or example row's) line from godog's own parse.
func (c *collector) line(p *godog.Scenario) int {
	doc := c.docs[p.Uri]
	if doc == nil || doc.Feature == nil || len(p.AstNodeIds) == 0 {
		return 0
	}
	want := p.AstNodeIds[len(p.AstNodeIds)-1]
	for _, ch := range doc.Feature.Children {
		sc := ch.Scenario
		if sc == nil {
			continue
		}
		if sc.Id == want {
			return int(sc.Location.Line)
		}
		for _, ex := range sc.Examples {
			for _, row := range ex.TableBody {
				if row.Id == want {
					return int(row.Location.Line)
				}
			}
		}
	}
	return 0
}

// collectFmt is a godog formatter that only remembers the parsed documents
// (for line numbers) and undefined steps.
type collectFmt struct {
	*godog.BaseFmt
	col *collector
}

func (f *collectFmt) Feature(doc *messages.GherkinDocument, uri string, _ []byte) {
	f.col.mu.Lock()
	defer f.col.mu.Unlock()
	f.col.docs[uri] = doc
}

func (f *collectFmt) Undefined(p *messages.Pickle, st *messages.PickleStep, _ *godog.StepDefinition) {
	f.col.mu.Lock()
	defer f.col.mu.Unlock()
	if f.col.undefined[p.Id] == "" {
		f.col.undefined[p.Id] = st.Text
	}
}

func (f *collectFmt) Summary() {}

// exchangeKept bounds the messages a non-passing scenario keeps in the
// report; a repro bundle keeps them all.
const exchangeKept = 200

// exchange is the last max messages of a scenario's log, for diagrams and
// transcripts.
func exchange(l *calllog.Log, max int) ([]report.Message, int) {
	es, omitted := l.Tail(max)
	out := make([]report.Message, len(es))
	for i, e := range es {
		m := report.Message{
			Seq: e.Seq, AtMS: ms(l.Since(e.Start)), Kind: e.Kind, Method: e.Method,
			Session: e.SessionID, Label: e.Label, Error: e.Err,
		}
		if e.Kind == calllog.Request {
			if e.Answered() {
				done := ms(l.Since(e.End))
				m.DoneMS = &done
			} else {
				m.Unanswered = true
			}
		}
		out[i] = m
	}
	return out, omitted
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
