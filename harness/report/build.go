package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentconform/conform/spec"
)

// Reasons Build gives when a scenario supplies none.
const (
	reasonNotCovered   = "no scenario covers this requirement yet"
	reasonUnverifiable = "not verifiable from outside"
	mustNotSkipped     = "a MUST cannot be skipped: "
)

// Build folds scenario outcomes into one verdict per catalog requirement and
// computes the compliance level. It does not modify its arguments. The caller
// fills in Report.Tool.Version and Report.Protocol.
//
// Scenario normalization:
//   - a scenario whose Requirements is empty gets the catalog IDs among its
//     tags (with or without the leading "@");
//   - a scenario with a status other than the scenario statuses is an
//     error: an outcome nobody can interpret is never a pass;
//   - the message log is dropped from passing scenarios, and a negative
//     duration (a clock going backwards) is clamped to zero;
//   - scenarios are sorted by file, then line.
//
// The verdict on a requirement follows from the scenarios that cover it,
// taken in file-then-line order. First, each scenario says one thing of the
// requirement (outcomeFor): a scenario that ended in error, was skipped or
// was not run says so for all its requirements; one that reached its checks
// speaks only through the checks that name the requirement — fail if any
// failed, else not reached if any was not reached, else pass if any passed,
// else unverifiable. These are the product's honesty rules:
//
//  1. No covering scenario: not_tested, never pass.
//  2. Any scenario says fail: fail. The reason is the first failing check,
//     at its own file:line; Failures lists every failing check.
//  3. Else any says error: error, with the first error text as the reason.
//  4. Else every covering scenario was skipped: skipped, with the skip
//     reason. A must-class requirement can never be skipped: it becomes fail
//     with the reason "a MUST cannot be skipped: <scenario>".
//  5. Else no scenario says pass: unverifiable if one says so (not being
//     able to see a violation is not a pass), else not_tested with the
//     reason (not reached, or not run).
//  6. Else pass. The pass is partial, naming what was not verified, when
//     the catalog names a clause not observable over the wire, or a check
//     was not reached or a covering scenario unverifiable elsewhere.
//
// Observations are gathered from the scenarios and never change a verdict.
//
// A requirement the kernel labelled glue (Kernel.Glue: its adapter's own
// code decides it, not the loop under it) keeps its verdict and carries the
// reason; a glue failure is counted apart (Summary.GlueFail), never among
// the loop's failures, and the label names it. The level still counts it:
// the kernel under test is the adapter.
//
// The compliance level is computed over the agent-loop profile only; seed
// rows of the separate deterministic-first profile are reported but never
// raise or lower it:
//
//   - "none" when any must-class requirement is fail or error;
//   - "none" as well when no requirement passed at all: a level earned by
//     testing nothing would be vacuous;
//   - otherwise "must"; "should" when in addition no should-class
//     requirement is fail, error or skipped; "all" when in addition no
//     may-class requirement is fail, error or skipped.
//
// not_tested and unverifiable never count as pass: Complete is true only
// when there are none of either, and the label of an incomplete run always
// says "partial" and how much is missing.
func Build(cat *spec.Catalog, k Kernel, scenarios []ScenarioResult, started time.Time, dur time.Duration) *Report {
	return BuildWith(cat, k, scenarios, started, dur, BuildOptions{})
}

// BuildOptions say how the run was made, where that changes the label.
type BuildOptions struct {
	// Selection is the tag expression that chose the scenarios; a selected
	// run makes no compliance claim.
	Selection string
	// Interrupted: the run stopped early; it makes no compliance claim.
	Interrupted bool
	// Warnings are carried into the report as they are.
	Warnings []string
	// Shard is "K/N" when the run covered one slice of its selection; a
	// slice makes no compliance claim (conform merge folds the slices).
	Shard string
	// LeftOut names, per requirement ID, the scenarios the run left out on
	// purpose (slow ones without --slow): a pass of that requirement is
	// partial, naming them.
	LeftOut map[string][]string
}

// BuildWith is Build for a run made with options.
func BuildWith(cat *spec.Catalog, k Kernel, scenarios []ScenarioResult, started time.Time, dur time.Duration, opt BuildOptions) *Report {
	if cat == nil {
		cat = &spec.Catalog{}
	}
	known := make(map[string]bool, len(cat.Requirements))
	for _, q := range cat.Requirements {
		known[q.ID] = true
	}

	scs := make([]ScenarioResult, len(scenarios))
	for i, s := range scenarios {
		scs[i] = normalizeScenario(s, known)
	}
	slices.SortStableFunc(scs, compareScenarios)

	covering := make(map[string][]int)
	for i, s := range scs {
		for _, id := range s.Requirements {
			if known[id] {
				covering[id] = append(covering[id], i)
			}
		}
	}

	k.Capabilities = slices.Clone(k.Capabilities)
	if k.Readings != nil {
		readings := make(map[string]string, len(k.Readings))
		for key, v := range k.Readings {
			readings[key] = v
		}
		k.Readings = readings
	}
	if k.Glue != nil {
		glue := make(map[string]string, len(k.Glue))
		for id, why := range k.Glue {
			glue[id] = why
		}
		k.Glue = glue
	}

	r := &Report{
		Tool:         Tool{Name: "conform"},
		Kernel:       k,
		StartedAt:    started,
		Duration:     max(dur, 0),
		Requirements: make([]RequirementResult, 0, len(cat.Requirements)),
		Scenarios:    scs,
	}
	for _, q := range cat.Requirements {
		cov := make([]ScenarioResult, len(covering[q.ID]))
		refs := make([]string, len(covering[q.ID]))
		for j, i := range covering[q.ID] {
			cov[j] = scs[i]
			refs[j] = scs[i].Ref()
		}
		v := verdict(q, k, cov, opt.LeftOut[q.ID])
		v.ID, v.Area, v.Title, v.Level, v.Class = q.ID, q.Area, q.Title, q.Level, q.Class
		v.Profile, v.Matrix, v.Scenarios = q.Profile, q.Matrix, refs
		if why, ok := k.Glue[q.ID]; ok { // the kernel's own label first
			v.Glue = why
		}
		r.Requirements = append(r.Requirements, v)
	}
	r.Summary = summarize(cat.Areas, r.Requirements, scs)
	for _, sc := range scs {
		for _, o := range sc.Observations {
			if o.Scenario == "" {
				o.Scenario = sc.Ref()
			}
			r.Observations = append(r.Observations, o)
		}
	}
	r.Warnings = slices.Clone(opt.Warnings)
	if len(opt.LeftOut) > 0 {
		r.LeftOut = opt.LeftOut
	}
	r.Interrupted, r.Selection = opt.Interrupted, opt.Selection
	r.Compliance = compliance(r.Requirements, opt)
	return r
}

// normalizeScenario returns a copy of s that Build can rely on.
func normalizeScenario(s ScenarioResult, known map[string]bool) ScenarioResult {
	s.Tags = slices.Clone(s.Tags)
	s.Log = slices.Clone(s.Log)
	if len(s.Requirements) == 0 {
		s.Requirements = nil
		for _, t := range s.Tags {
			if id := strings.TrimPrefix(t, "@"); known[id] {
				s.Requirements = append(s.Requirements, id)
			}
		}
	} else {
		s.Requirements = slices.Clone(s.Requirements)
	}
	s.Requirements = dedupe(s.Requirements)
	if !validScenario(s.Status) {
		text := fmt.Sprintf("unknown scenario status %q", s.Status)
		if s.Failure != "" {
			text += ": " + s.Failure
		}
		s.Status, s.Failure = Error, text
	}
	if s.Status == Pass {
		s.Log = nil
	}
	s.Duration = max(s.Duration, 0)
	return s
}

func compareScenarios(a, b ScenarioResult) int {
	return cmp.Or(
		cmp.Compare(a.File, b.File),
		cmp.Compare(a.Line, b.Line),
		cmp.Compare(a.Name, b.Name),
	)
}

func dedupe(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := ids[:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// verdict applies Build's rules to one requirement. cov is sorted.
func verdict(q spec.Requirement, k Kernel, cov []ScenarioResult, leftOut []string) RequirementResult {
	r := RequirementResult{}
	if len(cov) == 0 {
		r.Status, r.Reason = NotTested, reasonNotCovered
		return r
	}
	outs := make([]scenarioOutcome, len(cov))
	for i, s := range cov {
		outs[i] = outcomeFor(s, q.ID)
		r.Failures = append(r.Failures, outs[i].fails...)
		r.NotReached = append(r.NotReached, outs[i].notReached...)
	}
	firstOf := func(st Status) (int, bool) {
		for i, o := range outs {
			if o.status == st {
				return i, true
			}
		}
		return 0, false
	}
	allOf := func(sts ...Status) bool {
		for _, o := range outs {
			if !slices.Contains(sts, o.status) {
				return false
			}
		}
		return true
	}
	say := func(i int, fallback string) string {
		text := outs[i].text
		if text == "" {
			text = fallback
		}
		if len(outs[i].fails) > 0 {
			return outs[i].fails[0].Where() + ": " + text
		}
		return cov[i].Ref() + ": " + text
	}
	if i, ok := firstOf(Fail); ok {
		r.Status, r.Reason = Fail, say(i, "failed")
		if n := len(r.Failures); n > 1 {
			r.Reason += fmt.Sprintf(" (and %d more failing %s)", n-1, plural(n-1, "check", "checks"))
		}
		return r
	}
	if i, ok := firstOf(Error); ok {
		r.Status, r.Reason = Error, say(i, "error")
		return r
	}
	if allOf(Skipped) {
		s := cov[0]
		why := skipReason(q, k, s)
		if q.Class == classMust {
			r.Status, r.Reason = Fail, mustNotSkipped+s.Ref()+" ("+why+")"
			return r
		}
		r.Status, r.Reason = Skipped, why
		return r
	}
	if _, ok := firstOf(Pass); !ok {
		if i, ok := firstOf(Unverifiable); ok {
			r.Status = Unverifiable
			switch {
			case outs[i].text != "":
				r.Reason = outs[i].text
			case q.Unverifiable != "":
				r.Reason = q.Unverifiable
			default:
				r.Reason = reasonUnverifiable
			}
			return r
		}
		// Nothing passed and nothing failed: the requirement was not
		// tested, whatever else happened. Say why.
		r.Status = NotTested
		switch i, ok := firstOf(NotReached); {
		case ok:
			r.Reason = "not reached: " + say(i, "not reached")
			if r.Glue == "" && allGlue(r.NotReached) {
				// Only conform's own bridge kept it from being judged.
				r.Glue = r.NotReached[0].Message
			}
		case allOf(NotRun, Skipped):
			r.Reason = "not run: the run was interrupted"
		default:
			r.Reason = reasonNotCovered
		}
		return r
	}
	r.Status = Pass
	var gaps []string
	if q.Unverifiable != "" {
		gaps = append(gaps, q.Unverifiable+" (not observable over the wire)")
	}
	if n := len(r.NotReached); n > 0 {
		gap := fmt.Sprintf("%d %s not reached", n, plural(n, "check", "checks"))
		if g := countGlue(r.NotReached); g > 0 {
			gap += fmt.Sprintf(" (%d of them unseen by conform's bridge: profile glue)", g)
		}
		gaps = append(gaps, gap)
	}
	for _, o := range outs {
		if o.status == Unverifiable || o.status == NotRun {
			gaps = append(gaps, "a covering scenario was "+string(o.status))
			break
		}
	}
	for _, name := range leftOut {
		gaps = append(gaps, fmt.Sprintf("the slow scenario %q was left out (conform run --slow runs it)", name))
	}
	if len(gaps) > 0 {
		r.Partial, r.Unverified = true, strings.Join(gaps, "; ")
	}
	return r
}

// skipReason is the scenario's own reason or, failing that, the undeclared
// capability the requirement depends on.
func skipReason(q spec.Requirement, k Kernel, s ScenarioResult) string {
	if s.Failure != "" {
		return s.Failure
	}
	if q.Capability != "" && !slices.Contains(k.Capabilities, q.Capability) {
		return "capability " + q.Capability + " not declared"
	}
	return "skipped by " + s.Ref()
}

func scenarioRef(file string, line int) string {
	return file + ":" + strconv.Itoa(line)
}

func summarize(areas []spec.Area, reqs []RequirementResult, scs []ScenarioResult) Summary {
	sum := Summary{
		Requirements: fullCounts(nil, RequirementStatuses()),
		Scenarios:    fullCounts(nil, ScenarioStatuses()),
		ByArea:       make([]AreaSummary, len(areas)),
	}
	index := make(map[string]int, len(areas))
	for i, a := range areas {
		index[a.Prefix] = i
		sum.ByArea[i] = AreaSummary{Prefix: a.Prefix, Name: a.Name, Counts: fullCounts(nil, RequirementStatuses())}
	}
	for _, q := range reqs {
		i, inArea := index[q.Area]
		if q.GlueFail() { // the adapter's failure, not the loop's: counted apart
			sum.GlueFail++
			if inArea {
				sum.ByArea[i].GlueFail++
			}
			continue
		}
		sum.Requirements[q.Status]++
		if inArea {
			sum.ByArea[i].Counts[q.Status]++
		}
	}
	for _, s := range scs {
		sum.Scenarios[s.Status]++
	}
	return sum
}

// Failing returns the requirements that fail a CI gate at the given level:
// those of that class or stricter whose status is fail or error, in catalog
// order. "must" gates on must-class requirements, "should" on must and
// should, "all" (or "may") on must, should and may; "none" gates on nothing.
// Seed rows never gate. The level is case-insensitive; an unrecognized one
// gates like "all", so a typo cannot loosen a gate.
func (r *Report) Failing(class string) []RequirementResult {
	gated := map[string]bool{classMust: true, classShould: true, classMay: true}
	switch strings.ToLower(strings.TrimSpace(class)) {
	case LevelNone:
		return nil
	case classMust:
		gated = map[string]bool{classMust: true}
	case classShould:
		gated = map[string]bool{classMust: true, classShould: true}
	}
	var out []RequirementResult
	for _, q := range r.Requirements {
		if gated[q.Class] && agentLoop(q) && (q.Status == Fail || q.Status == Error) {
			out = append(out, q)
		}
	}
	return out
}
