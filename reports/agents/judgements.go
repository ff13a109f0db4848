package agents

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/agentconform/conform/harness/report"
)

// Classes of a failing verdict.
const (
	ClassTrue  = "true"  // a finding about the agent
	ClassGlue  = "glue"  // the profile's or the bridge's limitation
	ClassSuite = "suite" // a false failure of the suite, fixed
)

// Evidence kinds.
const (
	EvSource = "source" // file:line of the agent's pinned source
	EvReport = "report" // scenario file:line of the report, or an event-stream line
	EvDoc    = "doc"    // the agent's documentation (URL)
	EvTest   = "test"   // a regression test (package and test name)
	EvBridge = "bridge" // conform@COMMIT file:line of conform's bridge or profile
)

// Judgements is one agent's NAME.judgements.json.
type Judgements struct {
	Agent string `json:"agent"`
	// Report is the judged report's file name; SuiteDigest its
	// tool.suite_digest ("" for a report older than digests).
	Report      string `json:"report"`
	SuiteDigest string `json:"suite_digest"`
	// RunGlue are limitations of the profile as it was when the report
	// was run, fixed since (so no longer in the profile's glue list): the
	// report carries them as glue labels (Relabel) until it is run again.
	RunGlue []GlueNote  `json:"run_glue,omitempty"`
	Failing []Judgement `json:"failing"`
	Passes  []PassCheck `json:"passes"`
}

// Judgement classes one failing or erroring requirement.
type Judgement struct {
	Requirement string     `json:"requirement"`
	Class       string     `json:"class"`
	Why         string     `json:"why"`
	Evidence    []Evidence `json:"evidence"`
}

// Evidence is one pointer a reader can follow.
type Evidence struct {
	Kind string `json:"kind"`
	Ref  string `json:"ref"`
	Note string `json:"note,omitempty"`
}

// PassCheck is one sampled pass: who made it pass.
type PassCheck struct {
	Requirement string `json:"requirement"`
	// By is "agent" (the agent did it), "bridge" (the profile or the
	// bridge did it for the agent) or "nothing" (a check saw nothing).
	By  string `json:"by"`
	Why string `json:"why"`
}

// Agent is one checked agent: its report's base name, how the README names
// it, whether its source is open (a true finding then names a file and
// line of the pinned source), and its pinned package (from the profile).
type Agent struct {
	Slug, Title string
	Open        bool
}

// Agents are the agents with published reports, in README order.
var Agents = []Agent{
	{"claude-code", "[Claude Code](https://docs.claude.com/en/docs/claude-code)", false},
	{"codex", "[Codex CLI](https://github.com/openai/codex)", true},
	{"gemini-cli", "[Gemini CLI](https://github.com/google-gemini/gemini-cli)", true},
	{"opencode", "[opencode](https://github.com/anomalyco/opencode)", true},
	{"qwen-code", "[Qwen Code](https://github.com/QwenLM/qwen-code)", true},
	{"pi", "[pi](https://github.com/badlogic/pi-mono)", true},
	{"cline", "[Cline](https://github.com/cline/cline)", true},
	{"continue", "[Continue](https://github.com/continuedev/continue)", true},
	{"kilo-code", "[Kilo Code](https://github.com/Kilo-Org/kilocode)", true},
}

// Package is a profile's pinned package.
type Package struct {
	NPM     string `json:"npm"`
	Version string `json:"version"`
}

// GlueNote is one glue label: a requirement and why it is glue.
type GlueNote struct {
	Requirement string `json:"requirement"`
	Reason      string `json:"reason"`
}

// Profile is what this package reads of profiles/agents/NAME.json.
type Profile struct {
	Package Package    `json:"package"`
	Glue    []GlueNote `json:"glue"`
}

// LoadProfile reads profiles/agents/NAME.json below root.
func LoadProfile(root, slug string) (*Profile, error) {
	data, err := os.ReadFile(filepath.Join(root, "profiles", "agents", slug+".json"))
	if err != nil {
		return nil, err
	}
	var p Profile
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("profile %s: %w", slug, err)
	}
	return &p, nil
}

// LoadReport reads dir/NAME.json.
func LoadReport(dir, slug string) (*report.Report, error) {
	return report.ReadFile(filepath.Join(dir, slug+".json"))
}

// LoadJudgements reads dir/NAME.judgements.json (strictly: an unknown
// field is an error, so a misspelt key is not silently dropped).
func LoadJudgements(dir, slug string) (*Judgements, error) {
	f, err := os.Open(filepath.Join(dir, slug+".judgements.json"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	var j Judgements
	if err := dec.Decode(&j); err != nil {
		return nil, fmt.Errorf("%s.judgements.json: %w", slug, err)
	}
	return &j, nil
}

// fileLine is a source reference: a path, a colon and a line (or range).
var fileLine = regexp.MustCompile(`[^\s:]+\.[A-Za-z0-9]+:[0-9]+(-[0-9]+)?\b`)

// bridgeRef is conform's own file and line at a commit: the bridge and the
// profiles change after a judgement is written, and an unpinned line then
// points at other code (several did).
var bridgeRef = regexp.MustCompile(`^conform@([0-9a-f]{7,40}) ([^\s:]+\.[A-Za-z0-9]+):([0-9]+)(?:-([0-9]+))?$`)

// Check holds j to its report r and the agent's profile p; it returns
// what disagrees.
func Check(a Agent, j *Judgements, r *report.Report, p *Profile) []string {
	var bad []string
	add := func(f string, args ...any) { bad = append(bad, fmt.Sprintf(f, args...)) }
	if j.Agent != a.Slug {
		add("agent %q, want %q", j.Agent, a.Slug)
	}
	if j.SuiteDigest != r.Tool.SuiteDigest {
		add("judged the report of suite %q, the report is of suite %q: judge the new report", j.SuiteDigest, r.Tool.SuiteDigest)
	}
	byID := map[string]report.RequirementResult{}
	for _, q := range r.Requirements {
		byID[q.ID] = q
	}
	profileGlue := map[string]bool{}
	for _, g := range append(slices.Clone(p.Glue), j.RunGlue...) {
		profileGlue[g.Requirement] = true
	}
	judged := map[string]bool{}
	for _, g := range j.Failing {
		id := g.Requirement
		if judged[id] {
			add("%s is judged twice", id)
		}
		judged[id] = true
		q, ok := byID[id]
		switch {
		case !ok:
			add("%s is judged, the report has no such requirement", id)
			continue
		case q.Status != report.Fail && q.Status != report.Error:
			add("%s is judged as failing, the report says %s", id, q.Status)
			continue
		}
		if strings.TrimSpace(g.Why) == "" || len(g.Evidence) == 0 {
			add("%s: a judgement needs a why and evidence", id)
		}
		kinds := map[string]bool{}
		for _, e := range g.Evidence {
			kinds[e.Kind] = true
			if !slices.Contains([]string{EvSource, EvReport, EvDoc, EvTest, EvBridge}, e.Kind) || strings.TrimSpace(e.Ref) == "" {
				add("%s: evidence %q %q is not a known kind with a reference", id, e.Kind, e.Ref)
			}
			if (e.Kind == EvSource || e.Kind == EvBridge) && !fileLine.MatchString(e.Ref) {
				add("%s: %s evidence %q names no file:line", id, e.Kind, e.Ref)
			}
			if e.Kind == EvBridge && !bridgeRef.MatchString(e.Ref) {
				add("%s: bridge evidence %q names no commit (conform@COMMIT path:line): a line of the bridge moves as it changes", id, e.Ref)
			}
		}
		switch g.Class {
		case ClassTrue:
			if q.Glue != "" {
				add("%s is labelled glue in the report (%q) but judged a true finding: take it out of the profile's glue", id, q.Glue)
			}
			if a.Open && !kinds[EvSource] {
				add("%s: a true finding about an open-source agent names the file and line of its pinned source", id)
			}
			if !a.Open && !kinds[EvReport] {
				add("%s: a true finding about a closed agent names the recorded behaviour (report evidence)", id)
			}
		case ClassGlue:
			if q.Glue == "" {
				add("%s is judged glue but the report does not label it glue (declare it in the profile's glue and run again)", id)
			}
			if !profileGlue[id] {
				add("%s is judged glue but neither the profile nor the judgement's run_glue declares it", id)
			}
		case ClassSuite:
			if !kinds[EvTest] {
				add("%s: a false failure of the suite names the regression test that fixes it", id)
			}
		default:
			add("%s: class %q is not true, glue or suite", id, g.Class)
		}
	}
	for _, q := range r.Requirements {
		if (q.Status == report.Fail || q.Status == report.Error) && !judged[q.ID] {
			add("%s %s in the report but has no judgement", q.ID, q.Status)
		}
		if q.Glue != "" && (q.Status == report.Fail || q.Status == report.Error) && judged[q.ID] {
			for _, g := range j.Failing {
				if g.Requirement == q.ID && g.Class != ClassGlue {
					// reported above for true; a suite class on a glue label is also wrong
					if g.Class == ClassSuite {
						add("%s is labelled glue in the report but judged a false failure of the suite", q.ID)
					}
				}
			}
		}
	}
	for _, s := range j.Passes {
		q, ok := byID[s.Requirement]
		if !ok || q.Status != report.Pass {
			add("pass sample %s: the report says %s", s.Requirement, statusOf(r, s.Requirement))
		}
		if s.By != "agent" && s.By != "bridge" && s.By != "nothing" {
			add("pass sample %s: by %q is not agent, bridge or nothing", s.Requirement, s.By)
		}
		if strings.TrimSpace(s.Why) == "" {
			add("pass sample %s: no why", s.Requirement)
		}
	}
	return bad
}

func statusOf(r *report.Report, id string) string {
	for _, q := range r.Requirements {
		if q.ID == id {
			return string(q.Status)
		}
	}
	return "nothing (no such requirement)"
}
