package report

import (
	"bytes"
	"encoding/json"
	"math"
	"time"
)

// Status is the outcome of a scenario or the verdict on a requirement.
type Status string

// Scenario statuses. A requirement's verdict is one of these or NotTested.
const (
	// Pass: the scenario ran and every check held.
	Pass Status = "pass"
	// Fail: the kernel did something the specification forbids.
	Fail Status = "fail"
	// Skipped: the scenario needs an optional capability the kernel declared
	// it does not have. Never acceptable for a MUST (see Build).
	Skipped Status = "skipped"
	// Unverifiable: what the scenario checks cannot be observed from outside
	// the kernel; only a declaration could answer it. Never counted as a pass.
	Unverifiable Status = "unverifiable"
	// Error: the run could not reach a verdict because the kernel crashed,
	// hung or broke the protocol (or the harness itself failed).
	Error Status = "error"
)

// NotTested is the verdict on a requirement no scenario covers. It is a
// requirement status only; a scenario that ran has one of the other five.
const NotTested Status = "not_tested"

// ScenarioStatuses returns the scenario statuses in report order.
func ScenarioStatuses() []Status {
	return []Status{Pass, Fail, Error, Skipped, Unverifiable, NotReached, NotRun}
}

// RequirementStatuses returns the six requirement statuses in report order.
func RequirementStatuses() []Status {
	return []Status{Pass, Fail, Error, Skipped, Unverifiable, NotTested}
}

// validScenario reports whether s is one of the scenario statuses.
func validScenario(s Status) bool {
	switch s {
	case Pass, Fail, Error, Skipped, Unverifiable, NotReached, NotRun:
		return true
	}
	return false
}

// Requirement classes and profiles, as the catalog spells them.
const (
	classMust   = "must"
	classShould = "should"
	classMay    = "may"
	classSeed   = "seed"

	profileAgentLoop          = "agent-loop"
	profileDeterministicFirst = "deterministic-first"
)

// ScenarioResult is the outcome of one executed Gherkin scenario.
type ScenarioResult struct {
	File string   `json:"file"`
	Line int      `json:"line"`
	Name string   `json:"name"`
	Tags []string `json:"tags"`
	// Requirements are the catalog IDs the scenario's tags claim to prove.
	// When empty, Build derives them from Tags.
	Requirements []string `json:"requirements"`
	Status       Status   `json:"status"`
	// Duration is written as duration_ms, a float number of milliseconds.
	Duration time.Duration `json:"-"`
	// Started is when the scenario started (zero when unknown).
	Started time.Time `json:"-"`
	// Failure is the failure or error text; for skipped and unverifiable
	// scenarios it is the reason.
	Failure string `json:"failure,omitempty"`
	// Log holds the recorded message log lines. Build keeps it only for
	// scenarios that did not pass.
	Log []string `json:"log,omitempty"`
	// Checks are the scenario's checks in step order. When present, a
	// requirement's verdict comes only from the checks that name it.
	Checks []CheckResult `json:"checks,omitempty"`
	// Observations are what the scenario recorded without judging.
	Observations []Observation `json:"observations,omitempty"`
	// Exchange is the recorded message exchange of a scenario that did not
	// pass (its last messages; ExchangeOmitted says how many came before).
	Exchange        []Message `json:"exchange,omitempty"`
	ExchangeOmitted int       `json:"exchange_omitted,omitempty"`
}

// Ref returns the scenario's "file:line" reference.
func (s ScenarioResult) Ref() string {
	return scenarioRef(s.File, s.Line)
}

// Kernel describes the kernel under test, as it introduced itself.
type Kernel struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Capabilities are the optional capabilities the kernel declared.
	Capabilities []string `json:"capabilities"`
	// Readings records how the kernel reads points the specification leaves
	// open, keyed by the point.
	Readings map[string]string `json:"readings,omitempty"`
	// Glue names, per requirement ID, what the adapter's glue does there:
	// the requirements whose verdict depends on the glue, not on the loop
	// under it (PROTOCOL.md §15), as the kernel declared them.
	Glue map[string]string `json:"glue,omitempty"`
	// Command is how the harness started the kernel's adapter.
	Command string `json:"command,omitempty"`
}

// Tool names the program that produced the report and the suite it ran
// (see package harness/provenance).
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Commit is the commit conform was built from ("" when unknown).
	Commit string `json:"commit,omitempty"`
	// SuiteDigest is "sha256:" and the digest of the requirement catalog
	// and the feature files the run used: two reports with the same digest
	// come from the same suite.
	SuiteDigest string `json:"suite_digest,omitempty"`
}

// Report is the full result of one conformance run.
type Report struct {
	Tool     Tool   `json:"tool"`
	Protocol string `json:"protocol"`
	Kernel   Kernel `json:"kernel"`
	// StartedAt is when the run started.
	StartedAt time.Time `json:"started_at"`
	// Duration is the run's wall-clock time, written as duration_ms.
	Duration     time.Duration       `json:"-"`
	Summary      Summary             `json:"summary"`
	Compliance   Compliance          `json:"compliance"`
	Requirements []RequirementResult `json:"requirements"`
	Scenarios    []ScenarioResult    `json:"scenarios"`
	// Observations are behaviour recorded without judging, from every
	// scenario; they never change a verdict or the exit status.
	Observations []Observation `json:"observations"`
	// Warnings are problems with the run's input that are not verdicts
	// (an unknown capability name, for one).
	Warnings []string `json:"warnings"`
	// LeftOut names, per requirement ID, the slow scenarios the run left
	// out (conform run without --slow); a pass of those requirements is
	// partial. Kept in the report so a merge of shards says the same.
	LeftOut map[string][]string `json:"-"`
	// Interrupted is true when the run was stopped before every selected
	// scenario ran; those scenarios are not_run.
	Interrupted bool `json:"interrupted"`
	// Selection is the tag expression that chose the scenarios, if any.
	Selection string `json:"selection,omitempty"`
	// Stability is set when the run was repeated (--repeat).
	Stability *Stability `json:"stability,omitempty"`
	// Shard is set when the run covered one slice of its selection
	// (--shard K/N); Merged when the report folds others (conform merge);
	// Baseline when known failures were given (--baseline). See ci.go.
	Shard    *ShardInfo      `json:"shard,omitempty"`
	Merged   *MergeInfo      `json:"merged,omitempty"`
	Baseline *BaselineResult `json:"baseline,omitempty"`
}

// Summary counts verdicts. Every status key is always present, zero or not.
type Summary struct {
	// Requirements counts requirement verdicts over the whole catalog,
	// deterministic-first seed rows included.
	Requirements map[Status]int `json:"requirements"`
	// Scenarios counts scenario outcomes.
	Scenarios map[Status]int `json:"scenarios"`
	// ByArea counts requirement verdicts per catalog area, in catalog order.
	ByArea []AreaSummary `json:"by_area"`
	// GlueFail counts the failing requirements the kernel labelled glue.
	// They are not in Requirements[fail], which counts the loop's failures.
	GlueFail int `json:"glue_fail,omitempty"`
}

// AreaSummary counts the requirement verdicts of one area.
type AreaSummary struct {
	Prefix string         `json:"prefix"`
	Name   string         `json:"name"`
	Counts map[Status]int `json:"counts"`
	// GlueFail counts the area's glue-labelled failures, left out of Counts.
	GlueFail int `json:"glue_fail,omitempty"`
}

// RequirementResult is the verdict on one catalog requirement.
type RequirementResult struct {
	ID    string `json:"id"`
	Area  string `json:"area"`
	Title string `json:"title"`
	// Level is the catalog's wording ("MUST (default)"); Class its
	// normalized form (must, should, may, seed).
	Level   string `json:"level"`
	Class   string `json:"class"`
	Profile string `json:"profile"`
	Matrix  bool   `json:"matrix"`
	Status  Status `json:"status"`
	// Scenarios are the covering scenarios as "file:line", sorted.
	Scenarios []string `json:"scenarios"`
	// Reason says why the status is what it is: the first failure text, the
	// skip reason, the unverifiable note, or that nothing covers it yet.
	Reason string `json:"reason,omitempty"`
	// Failures are every failing check that names the requirement.
	Failures []CheckRef `json:"failures,omitempty"`
	// NotReached are its checks that could not be evaluated.
	NotReached []CheckRef `json:"not_reached,omitempty"`
	// Partial marks a pass that does not cover the whole requirement;
	// Unverified names what was not verified (a clause not observable over
	// the wire, or checks not reached).
	Partial    bool   `json:"partial,omitempty"`
	Unverified string `json:"unverified,omitempty"`
	// Glue is the kernel's reason when it labelled the requirement glue:
	// its verdict depends on the adapter's glue, not on the loop under it.
	// A glue failure is counted apart (Summary.GlueFail). A requirement not
	// tested only because its checks were not reached through conform's
	// own glue (CheckRef.Glue) carries the first such check's message.
	Glue string `json:"glue,omitempty"`
}

// GlueFail reports whether q is a failure the kernel labelled glue.
func (q RequirementResult) GlueFail() bool {
	return q.Status == Fail && q.Glue != ""
}

// Compliance is the level a kernel has earned; see Build for the rules.
type Compliance struct {
	// Level is "none", "must", "should" or "all".
	Level string `json:"level"`
	// Complete is true only when no agent-loop requirement is not_tested or
	// unverifiable: only then does Level speak for the whole specification.
	Complete bool `json:"complete"`
	// NotTested and Unverifiable count agent-loop requirements.
	NotTested    int `json:"not_tested"`
	Unverifiable int `json:"unverifiable"`
	// Partial counts agent-loop passes that are partially verified.
	Partial int    `json:"partial"`
	Label   string `json:"label"`
}

// Compliance levels, from weakest to strongest.
const (
	LevelNone   = "none"
	LevelMust   = "must"
	LevelShould = "should"
	LevelAll    = "all"
)

// --- JSON ---------------------------------------------------------------

// scenarioJSON is ScenarioResult's wire form; it only exists to write the
// duration in milliseconds.
type scenarioJSON struct {
	File            string        `json:"file"`
	Line            int           `json:"line"`
	Name            string        `json:"name"`
	Tags            []string      `json:"tags"`
	Requirements    []string      `json:"requirements"`
	Status          Status        `json:"status"`
	DurationMS      float64       `json:"duration_ms"`
	StartedAt       *time.Time    `json:"started_at,omitempty"`
	Failure         string        `json:"failure,omitempty"`
	Log             []string      `json:"log,omitempty"`
	Checks          []CheckResult `json:"checks,omitempty"`
	Observations    []Observation `json:"observations,omitempty"`
	Exchange        []Message     `json:"exchange,omitempty"`
	ExchangeOmitted int           `json:"exchange_omitted,omitempty"`
}

// MarshalJSON writes Duration as duration_ms and nil slices as [].
func (s ScenarioResult) MarshalJSON() ([]byte, error) {
	return marshal(scenarioJSON{
		File:            s.File,
		Line:            s.Line,
		Name:            s.Name,
		Tags:            orEmpty(s.Tags),
		Requirements:    orEmpty(s.Requirements),
		Status:          s.Status,
		DurationMS:      millis(s.Duration),
		StartedAt:       timeOrNil(s.Started),
		Failure:         s.Failure,
		Log:             s.Log,
		Checks:          s.Checks,
		Observations:    s.Observations,
		Exchange:        s.Exchange,
		ExchangeOmitted: s.ExchangeOmitted,
	})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *ScenarioResult) UnmarshalJSON(data []byte) error {
	var v scenarioJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*s = ScenarioResult{
		File:            v.File,
		Line:            v.Line,
		Name:            v.Name,
		Tags:            v.Tags,
		Requirements:    v.Requirements,
		Status:          v.Status,
		Duration:        fromMillis(v.DurationMS),
		Started:         derefTime(v.StartedAt),
		Failure:         v.Failure,
		Log:             v.Log,
		Checks:          v.Checks,
		Observations:    v.Observations,
		Exchange:        v.Exchange,
		ExchangeOmitted: v.ExchangeOmitted,
	}
	return nil
}

// reportJSON is Report's wire form, with the fields in reading order.
type reportJSON struct {
	Tool         Tool                `json:"tool"`
	Protocol     string              `json:"protocol"`
	Kernel       Kernel              `json:"kernel"`
	StartedAt    time.Time           `json:"started_at"`
	DurationMS   float64             `json:"duration_ms"`
	Summary      Summary             `json:"summary"`
	Compliance   Compliance          `json:"compliance"`
	Requirements []RequirementResult `json:"requirements"`
	Scenarios    []ScenarioResult    `json:"scenarios"`
	Observations []Observation       `json:"observations"`
	Warnings     []string            `json:"warnings"`
	LeftOut      map[string][]string `json:"left_out,omitempty"`
	Interrupted  bool                `json:"interrupted"`
	Selection    string              `json:"selection,omitempty"`
	Stability    *Stability          `json:"stability,omitempty"`
	Shard        *ShardInfo          `json:"shard,omitempty"`
	Merged       *MergeInfo          `json:"merged,omitempty"`
	Baseline     *BaselineResult     `json:"baseline,omitempty"`
}

// MarshalJSON writes Duration as duration_ms. It also fills what a
// hand-assembled Report may leave out, so the output always matches
// spec/report.schema.json: nil slices become [] and every status key is
// present in the counts.
func (r Report) MarshalJSON() ([]byte, error) {
	k := r.Kernel
	k.Capabilities = orEmpty(k.Capabilities)
	sum := Summary{
		Requirements: fullCounts(r.Summary.Requirements, RequirementStatuses()),
		Scenarios:    fullCounts(r.Summary.Scenarios, ScenarioStatuses()),
		ByArea:       make([]AreaSummary, len(r.Summary.ByArea)),
		GlueFail:     r.Summary.GlueFail,
	}
	for i, a := range r.Summary.ByArea {
		a.Counts = fullCounts(a.Counts, RequirementStatuses())
		sum.ByArea[i] = a
	}
	reqs := make([]RequirementResult, len(r.Requirements))
	for i, q := range r.Requirements {
		q.Scenarios = orEmpty(q.Scenarios)
		reqs[i] = q
	}
	return marshal(reportJSON{
		Tool:         r.Tool,
		Protocol:     r.Protocol,
		Kernel:       k,
		StartedAt:    r.StartedAt,
		DurationMS:   millis(r.Duration),
		Summary:      sum,
		Compliance:   r.Compliance,
		Requirements: reqs,
		Scenarios:    orEmpty(r.Scenarios),
		Observations: orEmpty(r.Observations),
		Warnings:     orEmpty(r.Warnings),
		LeftOut:      r.LeftOut,
		Interrupted:  r.Interrupted,
		Selection:    r.Selection,
		Stability:    r.Stability,
		Shard:        r.Shard,
		Merged:       r.Merged,
		Baseline:     r.Baseline,
	})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Report) UnmarshalJSON(data []byte) error {
	var v reportJSON
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*r = Report{
		Tool:         v.Tool,
		Protocol:     v.Protocol,
		Kernel:       v.Kernel,
		StartedAt:    v.StartedAt,
		Duration:     fromMillis(v.DurationMS),
		Summary:      v.Summary,
		Compliance:   v.Compliance,
		Requirements: v.Requirements,
		Scenarios:    v.Scenarios,
		Observations: v.Observations,
		Warnings:     v.Warnings,
		LeftOut:      v.LeftOut,
		Interrupted:  v.Interrupted,
		Selection:    v.Selection,
		Stability:    v.Stability,
		Shard:        v.Shard,
		Merged:       v.Merged,
		Baseline:     v.Baseline,
	}
	return nil
}

// marshal is json.Marshal without HTML escaping: failure texts are full of
// "<" and "&", and a report is not HTML.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func millis(d time.Duration) float64 {
	return float64(d) / float64(time.Millisecond)
}

func fromMillis(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// fullCounts returns a copy of m with every key in keys present.
func fullCounts(m map[Status]int, keys []Status) map[Status]int {
	out := make(map[Status]int, len(keys))
	for _, k := range keys {
		out[k] = 0
	}
	for k, n := range m {
		out[k] = n
	}
	return out
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func derefTime(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}
