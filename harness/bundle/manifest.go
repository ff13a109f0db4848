package bundle

import (
	"time"

	"github.com/agentconform/conform/harness/report"
)

// Format names the bundle layout; Read refuses any other.
const Format = "conform-bundle/v1"

// File names inside a bundle.
const (
	ManifestFile = "bundle.json"
	FeatureFile  = "scenario.feature"
	ExchangeFile = "exchange.jsonl"
	StderrFile   = "stderr.txt"
)

// Manifest is bundle.json (spec/bundle.schema.json).
type Manifest struct {
	Format    string    `json:"format"`
	CreatedAt time.Time `json:"created_at"`
	Conform   Versions  `json:"conform"`
	// CommandLine is how conform was started, secrets redacted.
	CommandLine string        `json:"command_line"`
	Kernel      report.Kernel `json:"kernel"`
	Run         RunSettings   `json:"run"`
	Scenario    Scenario      `json:"scenario"`
	Feature     string        `json:"feature_file"`
	Exchange    ExchangeInfo  `json:"exchange"`
	Stderr      StderrInfo    `json:"stderr"`
	// FuzzSeed is the seed of the conform fuzz campaign the scenario came
	// from, when it is a generated case.
	FuzzSeed *uint64 `json:"fuzz_seed,omitempty"`
}

// Versions are what the outcome depends on besides the kernel.
type Versions struct {
	Version        string `json:"version"`
	Protocol       string `json:"protocol"`
	CatalogVersion int    `json:"catalog_version"`
}

// RunSettings are the settings a replay reuses unless told otherwise.
type RunSettings struct {
	ScenarioTimeoutMS float64 `json:"scenario_timeout_ms"`
	TimeoutMultiplier float64 `json:"timeout_multiplier"`
}

// Scenario is the scenario and its outcome where it was recorded.
type Scenario struct {
	File   string               `json:"file"`
	Line   int                  `json:"line"`
	Name   string               `json:"name"`
	Tags   []string             `json:"tags"`
	Status report.Status        `json:"status"`
	Reason string               `json:"failure,omitempty"`
	Checks []report.CheckResult `json:"checks,omitempty"`
}

// Ref is the scenario's file:line where it was recorded.
func (s Scenario) Ref() string { return report.ScenarioResult{File: s.File, Line: s.Line}.Ref() }

// ExchangeInfo describes exchange.jsonl.
type ExchangeInfo struct {
	File     string `json:"file"`
	Messages int    `json:"messages"`
	Note     string `json:"note"`
}

// StderrInfo says what stderr.txt holds.
type StderrInfo struct {
	File string `json:"file"`
	// Complete is true when stderr.txt holds everything the kernel wrote
	// while it ran the scenario.
	Complete bool   `json:"complete"`
	Bytes    int    `json:"bytes"`
	Lost     int64  `json:"lost_bytes"`
	Note     string `json:"note"`
}

// Line is one line of exchange.jsonl: one message, in one direction.
type Line struct {
	// Seq orders the lines: the recorder numbers every arrival and every
	// answer; 0 is the session/run call, which opens the exchange, and the
	// last line its answer.
	Seq int `json:"seq"`
	// At is when the harness saw the message (absent for the session/run
	// call and its answer, which the recorder does not time); AtMS the same
	// in milliseconds since the scenario's log started.
	At   *time.Time `json:"at,omitempty"`
	AtMS *float64   `json:"at_ms,omitempty"`
	// From is "kernel" or "harness".
	From string `json:"from"`
	// Kind is request, notification or response.
	Kind    string `json:"kind"`
	Method  string `json:"method"`
	ReplyTo *int   `json:"reply_to,omitempty"`
	Session string `json:"session,omitempty"`
	Turn    string `json:"turn,omitempty"`
	Label   string `json:"label,omitempty"`
	Params  any    `json:"params,omitempty"`
	Result  any    `json:"result,omitempty"`
	Error   string `json:"error,omitempty"`
	// Unanswered marks a request the harness never answered.
	Unanswered bool `json:"unanswered,omitempty"`
}
