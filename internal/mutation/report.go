package mutation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"
)

// Report is a campaign's outcome: reports/mutation.json.
type Report struct {
	Tool    string `json:"tool"`
	Commit  string `json:"commit,omitempty"`
	Tree    string `json:"tree"` // the folder whose packages were mutated
	Sample  int    `json:"sample_per_package,omitempty"`
	Seed    uint64 `json:"seed,omitempty"`
	Jobs    int    `json:"jobs"`
	Confirm bool   `json:"survivors_confirmed_on_whole_suite"`
	// Plugins: judged by conform plugin (plugin.go); FromJournal: the
	// verdicts were read from the journals, not judged by this run.
	Plugins bool `json:"plugins,omitempty"`
	// Kernels are the kernels built on the tree that judged the embedded
	// kernel's survivors (kitkernel.go).
	Kernels     []string `json:"kernels,omitempty"`
	FromJournal bool     `json:"from_journal,omitempty"`
	// Kit names the adapter kit a kit campaign mutated (internal/
	// kitmutation): its mutants are judged by conform run against kernels
	// built on it. KitJudges says how, for the report's reader.
	Kit       string `json:"kit,omitempty"`
	KitJudges string `json:"kit_judges,omitempty"`
	// KitMutants is how many mutants the kit has when the campaign judged
	// only some of them (Incomplete): in a seeded random order, stopped
	// when its time ran out, so the judged ones are a random sample.
	KitMutants int `json:"kit_mutants,omitempty"`
	// Before is what the same verdicts score without the judges a kit
	// campaign added to the kit's own (its fuller kernel and new checks):
	// the figure before them.
	Before *Score `json:"before,omitempty"`
	// PerScenario: each mutant was judged by the scenarios that execute
	// its statement (scenarios.go).
	PerScenario bool    `json:"per_scenario,omitempty"`
	DurationS   float64 `json:"duration_s"`
	// WorkerS is the time spent judging every mutant, summed over jobs,
	// journaled verdicts included: what the whole campaign costs.
	WorkerS float64 `json:"worker_s"`
	// Builds counts the programs built to judge mutants: schema builds
	// (each holding many mutants) and mutants built alone;
	// SchemaBuildS is the time the schema builds took, outside WorkerS.
	Builds       int     `json:"builds,omitempty"`
	SchemaBuildS float64 `json:"schema_build_s,omitempty"`
	// CPU is the processor time the campaign's commands used (user and
	// system, summed over every build and run): unlike wall time it does
	// not depend on what else the machine runs.
	CPU       *CPUFigures    `json:"cpu_s,omitempty"`
	Target    float64        `json:"target"`
	Totals    Score          `json:"totals"`
	Packages  []Score        `json:"packages"`
	Survivors []Result       `json:"survivors,omitempty"` // written by WriteJSON
	Stale     []string       `json:"stale_classifications"`
	Mutants   []Result       `json:"mutants,omitempty"` // written by WriteJSON
	Operators map[Op]OpCount `json:"operators"`
	// Carried summarises the verdicts taken from an earlier campaign.
	Carried   *CarrySummary `json:"carried,omitempty"`
	Unclassed int           `json:"unclassified_survivors"`
	// Unreproduced counts, per requirement, the failures against a mutant
	// that did not come back on a second run: a measure of how flaky the
	// suite is on a loaded machine, not of the mutants.
	Unreproduced map[string]int `json:"unreproduced_failures"`
	MeetsGoal    bool           `json:"meets_target"`
	// BelowStrict names the packages whose strict score (open readings
	// counted against it) is under the target, though the spec score,
	// which the target applies to, meets it.
	BelowStrict []string `json:"below_target_strict,omitempty"`
	Incomplete  bool     `json:"incomplete,omitempty"`
}

// TargetScore is the gate of issue 12: at least 90% of the non-equivalent
// mutants of every package killed.
const TargetScore = 0.90

// Score is one package's figures (or the totals).
type Score struct {
	Package       string   `json:"package"`
	Requirements  []string `json:"requirements,omitempty"`
	Mutants       int      `json:"mutants"`
	NotViable     int      `json:"not_viable"`
	HarnessErrors int      `json:"harness_errors"`
	Killed        int      `json:"killed"`
	Crashed       int      `json:"crashed"`
	TimedOut      int      `json:"timed_out"`
	Survived      int      `json:"survived"`
	Equivalent    int      `json:"equivalent"`
	NotObservable int      `json:"not_observable"`
	OpenReading   int      `json:"open_reading"`
	LegalVariant  int      `json:"legal_variant"`
	Unclassified  int      `json:"unclassified"`
	// NeedsCheck counts the survivors the committed list names a missing
	// check for; like the unclassified, they count against the score.
	NeedsCheck int `json:"needs_check"`
	// Unreached counts the survivors whose statement no scenario executes.
	Unreached int `json:"survivors_not_reached"`
	// Raw is kills over viable mutants; Score is kills over viable
	// mutants that are neither equivalent nor legal variants (a correct
	// kernel declaring what it does, which the suite must let pass).
	// SpecScore also leaves
	// out the open readings: a mutant whose behaviour is a reading the
	// specification leaves open is equivalent with respect to the
	// specification, and a conformance suite that killed it would fail a
	// correct kernel. The target applies to SpecScore; the not observable
	// still count against it.
	Raw       float64 `json:"raw_score"`
	Score     float64 `json:"score"`
	SpecScore float64 `json:"spec_score"`
}

// OpCount is how an operator fared across the campaign.
type OpCount struct {
	Mutants  int `json:"mutants"`
	Viable   int `json:"viable"`
	Killed   int `json:"killed"`
	Survived int `json:"survived"`
}

// CarrySummary says how many verdicts came from an earlier campaign and
// how the judged-again sample of them fared.
type CarrySummary struct {
	From      string   `json:"from"`
	Count     int      `json:"count"`     // carried and not judged again
	Rechecked int      `json:"rechecked"` // carried kills judged again
	Disagreed []string `json:"disagreed"` // places where the new verdict differs
}

func newReport(cfg Config, pkgs []Package, results []Result, took time.Duration) *Report {
	r := &Report{
		Tool: "conform internal/mutation (go/ast, go build -overlay)", Commit: cfg.Commit, Tree: cfg.Tree, Sample: cfg.PerPackage, Jobs: cfg.Jobs,
		Confirm: cfg.Confirm, PerScenario: cfg.PerScenario, DurationS: took.Round(time.Second).Seconds(), Target: TargetScore,
		Stale: []string{}, Survivors: []Result{}, Operators: map[Op]OpCount{}, Mutants: results,
		Unreproduced: map[string]int{},
	}
	if cfg.PerPackage > 0 {
		r.Seed = cfg.Seed
	}
	byPkg := map[string]*Score{}
	for _, p := range pkgs {
		byPkg[p.Dir] = &Score{Package: p.Dir, Requirements: p.Requirements}
	}
	used := map[string]bool{}
	tot := Score{Package: "total"}
	for i := range results {
		res := &results[i]
		res.Classification = nil
		if res.CarriedFrom != "" {
			if r.Carried == nil {
				r.Carried = &CarrySummary{From: res.CarriedFrom, Disagreed: []string{}}
			}
			switch res.Rechecked {
			case "":
				r.Carried.Count++
			case "disagrees":
				r.Carried.Rechecked++
				r.Carried.Disagreed = append(r.Carried.Disagreed, res.Pos())
			default:
				r.Carried.Rechecked++
			}
		}
		r.WorkerS += float64(res.Millis) / 1000
		for _, id := range res.Unreproduced {
			r.Unreproduced[id]++
		}
		if res.Status == Survived {
			if c, ok := cfg.Classifications[res.Key]; ok {
				res.Classification = &c
				used[res.Key] = true
			}
			r.Survivors = append(r.Survivors, *res)
		}
		for _, s := range []*Score{byPkg[res.Package], &tot} {
			s.add(*res)
		}
		oc := r.Operators[res.Op]
		oc.Mutants++
		if res.Status != NotViable && res.Status != HarnessError {
			oc.Viable++
		}
		if res.Status.IsKill() {
			oc.Killed++
		}
		if res.Status == Survived {
			oc.Survived++
		}
		r.Operators[res.Op] = oc
	}
	r.MeetsGoal = true
	for _, p := range pkgs {
		s := byPkg[p.Dir]
		s.finish()
		r.Packages = append(r.Packages, *s)
		if s.Mutants-s.NotViable-s.HarnessErrors > 0 && s.SpecScore < TargetScore {
			r.MeetsGoal = false
		}
		if s.Mutants-s.NotViable-s.HarnessErrors > 0 && s.Score < TargetScore {
			r.BelowStrict = append(r.BelowStrict, s.Package)
		}
		r.Unclassed += s.Unclassified
	}
	tot.finish()
	r.Totals = tot
	if cfg.PerPackage == 0 {
		// Only a whole campaign can tell that a classification matches no
		// mutant any more; a sample would call most of them stale.
		for k := range cfg.Classifications {
			if !used[k] {
				r.Stale = append(r.Stale, k)
			}
		}
		slices.Sort(r.Stale)
	}
	return r
}

func (s *Score) add(r Result) {
	s.Mutants++
	switch r.Status {
	case NotViable:
		s.NotViable++
	case HarnessError:
		s.HarnessErrors++
	case Killed:
		s.Killed++
	case Crashed:
		s.Crashed++
	case TimedOut:
		s.TimedOut++
	case Survived:
		s.Survived++
		if r.Reached == ReachedNo {
			s.Unreached++
		}
		if r.Classification == nil {
			s.Unclassified++
			return
		}
		switch r.Classification.Class {
		case Equivalent:
			s.Equivalent++
		case NotObservable:
			s.NotObservable++
		case OpenReading:
			s.OpenReading++
		case LegalVariant:
			s.LegalVariant++
		case NeedsCheck:
			s.NeedsCheck++
		}
	}
}

func (s *Score) finish() {
	kills := s.Killed + s.Crashed + s.TimedOut
	if viable := kills + s.Survived; viable > 0 {
		s.Raw = float64(kills) / float64(viable)
	}
	same := s.Equivalent + s.LegalVariant
	s.Score = ratio(kills, kills+s.Survived-same, kills+s.Survived)
	s.SpecScore = ratio(kills, kills+s.Survived-same-s.OpenReading, kills+s.Survived)
}

// ratio is kills over counted; 1 when every viable mutant was left out of
// counted (all equivalent), 0 when there was none.
func ratio(kills, counted, viable int) float64 {
	switch {
	case counted > 0:
		return float64(kills) / float64(counted)
	case viable > 0:
		return 1
	}
	return 0
}

// WriteJSON writes the report as indented JSON.
// The summary is indented; survivors and mutants come one per line, so the
// file stays small and a change to one mutant is a one-line diff.
func WriteJSON(w io.Writer, r *Report) error {
	head := *r
	head.Survivors, head.Mutants = nil, nil
	b, err := json.MarshalIndent(head, "", "  ")
	if err != nil {
		return err
	}
	var out bytes.Buffer
	out.Write(bytes.TrimSuffix(b, []byte("\n}")))
	for _, list := range []struct {
		name string
		rs   []Result
	}{{"survivors", r.Survivors}, {"mutants", r.Mutants}} {
		fmt.Fprintf(&out, ",\n  %q: [", list.name)
		for i, res := range list.rs {
			line, err := json.Marshal(res)
			if err != nil {
				return err
			}
			if i > 0 {
				out.WriteByte(',')
			}
			out.WriteString("\n    ")
			out.Write(line)
		}
		if len(list.rs) > 0 {
			out.WriteString("\n  ")
		}
		out.WriteByte(']')
	}
	out.WriteString("\n}\n")
	_, err = w.Write(out.Bytes())
	return err
}

// CPUFigures splits a campaign's processor time, in seconds: setup (the
// unmutated build and suite run, and measuring reach), the builds of
// mutants (schema programs and mutants built alone) and everything, this
// process's own time included.
//
// The rest splits it further, to show where a campaign's time goes:
// coverage (the coverage build and every coverage run, covdata included),
// baseline (the unmutated program's build and suite run), schema_builds
// and alone_builds, and judging, the CPU time of the judged runs by the
// verdict they came to (killed, crashed, timeout, survived). Runs counts
// the judged runs; timeout_reruns the runs that timed out and ran again
// (timeout_reruns_ended of them came to a verdict the second time).
type CPUFigures struct {
	Setup  float64 `json:"setup"`
	Builds float64 `json:"builds"`
	Total  float64 `json:"total"`

	Coverage           float64            `json:"coverage,omitempty"`
	Baseline           float64            `json:"baseline,omitempty"`
	SchemaBuilds       float64            `json:"schema_builds,omitempty"`
	AloneBuilds        float64            `json:"alone_builds,omitempty"`
	AloneBuildCount    int                `json:"alone_build_count,omitempty"`
	Judging            map[Status]float64 `json:"judging,omitempty"`
	Runs               int                `json:"runs,omitempty"`
	TimeoutReruns      int                `json:"timeout_reruns,omitempty"`
	TimeoutRerunsEnded int                `json:"timeout_reruns_ended,omitempty"`
}

// split fills the parts from a campaign's tally and its results.
func (c *CPUFigures) split(t *tally, results []Result) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c.Coverage, c.Baseline = t.coverage.Seconds(), t.baseline.Seconds()
	c.SchemaBuilds, c.AloneBuilds, c.AloneBuildCount = t.schemaCPU.Seconds(), t.aloneCPU.Seconds(), t.aloneBuilds
	c.Runs, c.TimeoutReruns, c.TimeoutRerunsEnded = t.runs, t.reruns, t.rerunsEnded
	c.Judging = map[Status]float64{}
	for _, r := range results {
		if r.CarriedFrom != "" && r.Rechecked == "" {
			continue
		}
		if ms := r.CPUMillis - r.buildCPU; ms > 0 {
			c.Judging[r.Status] += float64(ms) / 1000
		}
	}
}

// add sums another pass's figures into c (RunKernels: one campaign judged
// in passes); Total is left to the caller, who measured the whole.
func (c *CPUFigures) add(o *CPUFigures) {
	if o == nil {
		return
	}
	c.Setup += o.Setup
	c.Builds += o.Builds
	c.Coverage += o.Coverage
	c.Baseline += o.Baseline
	c.SchemaBuilds += o.SchemaBuilds
	c.AloneBuilds += o.AloneBuilds
	c.AloneBuildCount += o.AloneBuildCount
	c.Runs += o.Runs
	c.TimeoutReruns += o.TimeoutReruns
	c.TimeoutRerunsEnded += o.TimeoutRerunsEnded
	if len(o.Judging) > 0 && c.Judging == nil {
		c.Judging = map[Status]float64{}
	}
	for s, v := range o.Judging {
		c.Judging[s] += v
	}
}
