package report

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentconform/conform/internal/safetext"
)

// WriteJSON writes the report as indented JSON, in the shape
// spec/report.schema.json describes.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// JUnit XML shapes, in the dialect most CI viewers (Jenkins, GitLab, GitHub
// test reporters) read.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string       `xml:"name,attr"`
	Classname string       `xml:"classname,attr"`
	File      string       `xml:"file,attr,omitempty"`
	Line      int          `xml:"line,attr,omitempty"`
	Time      string       `xml:"time,attr"`
	Failure   *junitResult `xml:"failure,omitempty"`
	Error     *junitResult `xml:"error,omitempty"`
	Skipped   *junitResult `xml:"skipped,omitempty"`
}

// junitResult's body is CDATA so that failure texts and message logs keep
// their line breaks for a person reading the file; safetext.Text makes it
// legal (encoding/xml checks attributes and character data, not CDATA).
type junitResult struct {
	Message string `xml:"message,attr,omitempty"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",cdata"`
}

// WriteJUnit writes the scenarios as JUnit XML: one testsuite per feature
// file, one testcase per scenario. A testcase is named "[TA-01 TA-18]
// <scenario name>" and its classname is the area prefixes of the requirements
// it covers. Failures carry the failure text and the recorded message log;
// skipped and unverifiable scenarios are both <skipped>, the latter with the
// message "not verifiable from outside: ...", since JUnit has no status for
// them and neither is a pass.
//
// Secrets of conform's environment are redacted and every string is
// normalised (see package safetext), so the file always parses and a CI
// viewer shows control characters as visible escapes.
func WriteJUnit(w io.Writer, r *Report) error {
	return writeJUnit(w, r, safetext.EnvironRedactor())
}

func writeJUnit(w io.Writer, r *Report, secrets *safetext.Redactor) error {
	x := xmlText{secrets}
	byFile := make(map[string][]ScenarioResult)
	var files []string
	for _, s := range r.Scenarios {
		if _, ok := byFile[s.File]; !ok {
			files = append(files, s.File)
		}
		byFile[s.File] = append(byFile[s.File], s)
	}
	slices.Sort(files)

	props := []junitProperty{
		{Name: "kernel.name", Value: x.line(r.Kernel.Name)},
		{Name: "kernel.version", Value: x.line(r.Kernel.Version)},
		{Name: "protocol", Value: x.line(r.Protocol)},
		{Name: "conform.version", Value: x.line(r.Tool.Version)},
		{Name: "conform.commit", Value: x.line(r.Tool.Commit)},
		{Name: "conform.suite_digest", Value: x.line(r.Tool.SuiteDigest)},
		{Name: "compliance.level", Value: x.line(r.Compliance.Level)},
		{Name: "compliance.label", Value: x.line(r.Compliance.Label)},
		{Name: "interrupted", Value: strconv.FormatBool(r.Interrupted)},
	}
	// JUnit has no place for a requirement's verdict; a partial pass and
	// an observation are properties, so a CI viewer still shows them.
	for _, q := range r.Requirements {
		if q.Status == Pass && q.Partial {
			props = append(props, junitProperty{Name: "partial." + x.line(q.ID), Value: x.line("pass (partial): not verified: " + q.Unverified)})
		}
		if q.Glue != "" { // the adapter's glue decides it: a viewer must not read it as the loop's
			props = append(props, junitProperty{Name: "glue." + x.line(q.ID), Value: x.line(statusWord(q) + ": " + q.Glue)})
		}
	}
	if r.hasGlue() {
		props = append(props, junitProperty{Name: "requirements.glue_fail", Value: strconv.Itoa(r.Summary.GlueFail)})
	}
	for i, o := range r.Observations {
		props = append(props, junitProperty{Name: fmt.Sprintf("observation.%d.%s", i+1, x.line(o.Subject)), Value: x.line(o.Scenario + ": " + o.What)})
	}
	var timestamp string
	if !r.StartedAt.IsZero() {
		timestamp = r.StartedAt.UTC().Format("2006-01-02T15:04:05")
	}

	out := junitSuites{Name: x.line(junitName(r))}
	var total time.Duration
	for _, f := range files {
		scs := slices.Clone(byFile[f])
		slices.SortStableFunc(scs, compareScenarios)
		suite := junitSuite{Name: x.line(f), Timestamp: timestamp, Properties: props}
		var sum time.Duration
		var first, last time.Time
		for _, s := range scs {
			suite.Cases = append(suite.Cases, x.testcase(s))
			suite.Tests++
			sum += s.Duration
			if !s.Started.IsZero() {
				if first.IsZero() || s.Started.Before(first) {
					first = s.Started
				}
				if end := s.Started.Add(s.Duration); end.After(last) {
					last = end
				}
			}
			switch s.Status {
			case Pass:
			case Fail:
				suite.Failures++
			case Skipped, Unverifiable, NotRun, NotReached:
				suite.Skipped++
			default:
				suite.Errors++
			}
		}
		// Scenarios run in parallel: the suite took the wall time from its
		// first start to its last end, not the sum of its scenarios.
		if !first.IsZero() {
			sum = last.Sub(first)
		}
		suite.Time = seconds(sum)
		total += sum
		out.Tests += suite.Tests
		out.Failures += suite.Failures
		out.Errors += suite.Errors
		out.Skipped += suite.Skipped
		out.Suites = append(out.Suites, suite)
	}
	if r.Duration > 0 {
		total = r.Duration
	}
	out.Time = seconds(total)

	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// failingChecks is every failing check of a scenario, each with its line
// and the requirements it proves, or the failure text when there are none.
func failingChecks(s ScenarioResult, failure string) string {
	var b strings.Builder
	for _, c := range s.Checks {
		if c.Status != Fail {
			continue
		}
		fmt.Fprintf(&b, "%s:%d [%s] %s\n  %s\n", s.File, c.Line, strings.Join(c.Requirements, " "), c.Step, strings.ReplaceAll(c.Message, "\n", "\n  "))
	}
	if b.Len() == 0 {
		return failure
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func junitName(r *Report) string {
	name := "conform"
	if r.Interrupted {
		name += " (INTERRUPTED)"
	}
	if k := strings.TrimSpace(r.Kernel.Name + " " + r.Kernel.Version); k != "" {
		name += ": " + k
	}
	return name
}

func (x xmlText) testcase(s ScenarioResult) junitCase {
	name := s.Name
	if len(s.Requirements) > 0 {
		name = "[" + strings.Join(s.Requirements, " ") + "] " + s.Name
	}
	c := junitCase{
		Name:      x.line(name),
		Classname: x.line(classname(s.Requirements)),
		File:      x.line(s.File),
		Line:      s.Line,
		Time:      seconds(s.Duration),
	}
	// Redacted before firstLine cuts it, so that half a secret cannot remain.
	failure := x.secrets.Redact(s.Failure)
	switch s.Status {
	case Pass:
	case Fail:
		c.Failure = &junitResult{Message: x.line(firstLine(failure, "failed")), Type: string(Fail), Body: x.withLog(failingChecks(s, failure), s.Log)}
	case Skipped:
		c.Skipped = &junitResult{Message: x.line(firstLine(failure, "skipped"))}
	case Unverifiable:
		msg := reasonUnverifiable
		if failure != "" {
			msg += ": " + failure
		}
		c.Skipped = &junitResult{Message: x.line(msg)}
	case NotRun:
		c.Skipped = &junitResult{Message: x.line("not run: " + firstLine(failure, "the run was interrupted"))}
	case NotReached:
		c.Skipped = &junitResult{Message: x.line("not reached: " + firstLine(failure, "no check could be evaluated"))}
	default:
		// Error, and any status Build would have turned into one.
		c.Error = &junitResult{Message: x.line(firstLine(failure, "error")), Type: string(Error), Body: x.withLog(failure, s.Log)}
	}
	return c
}

// classname is the distinct area prefixes of the requirement IDs, in order,
// joined by "+" (a dot would read as a package path in JUnit viewers).
func classname(ids []string) string {
	var prefixes []string
	for _, id := range ids {
		p, _, _ := strings.Cut(id, "-")
		if !slices.Contains(prefixes, p) {
			prefixes = append(prefixes, p)
		}
	}
	if len(prefixes) == 0 {
		return "untagged"
	}
	return strings.Join(prefixes, "+")
}

// xmlText places strings in the JUnit file: each is redacted, then
// normalised by safetext, whose output is legal XML 1.0 character data.
type xmlText struct{ secrets *safetext.Redactor }

// line is for attributes, which hold one line.
func (x xmlText) line(s string) string {
	return safetext.Line(x.secrets.Redact(s))
}

// withLog is a failure body: the text, then the message log.
func (x xmlText) withLog(text string, log []string) string {
	if len(log) > 0 {
		text += "\n\nmessage log:\n" + strings.Join(log, "\n")
	}
	return safetext.Text(x.secrets.Redact(text))
}

func firstLine(text, fallback string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if line = strings.TrimSpace(line); line == "" {
		return fallback
	}
	return line
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}
