package mutation

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The campaigns of the Python and Node kits (internal/kitmutation, issue
// 29) judge mutants of code outside this module's Go, by conform run
// against kernels built on each kit; they share this package's verdicts,
// scores, classification list and report writers through these.

// NewReport scores a campaign's results as Run does: pkgs are the units
// the report splits its scores by, cfg.Classifications the committed
// survivor list. The caller sets Tool, Kit and the times.
func NewReport(cfg Config, pkgs []Package, results []Result, took time.Duration) *Report {
	return newReport(cfg, pkgs, results, took)
}

// ScoreOf scores results as one unit, named name: the totals a campaign
// would report had it judged these verdicts (Report.Before).
func ScoreOf(name string, results []Result, classes map[string]Classification) Score {
	s := Score{Package: name}
	for _, r := range results {
		r.Classification = nil
		if c, ok := classes[r.Key]; ok && r.Status == Survived {
			r.Classification = &c
		}
		s.add(r)
	}
	s.finish()
	return s
}

// TagFeatures copies the .feature files of src into dst with a tag of its
// own on every scenario, as per-scenario reach does, and returns each
// scenario's tag by "file:line", the form conform's JSON report names
// scenarios by in a run of dst: the line of its Scenario keyword in the
// copy (a scenario without tags gets a tag line of its own, which moves
// the scenarios after it), or for an outline the line of an example row,
// every line of a scenario naming its tag.
func TagFeatures(src, dst string) (map[string]string, error) {
	units, err := tagScenarios(src, dst)
	if err != nil {
		return nil, err
	}
	tags, seen := map[string]string{}, map[string]bool{}
	for _, f := range unitFiles(units) {
		b, err := os.ReadFile(filepath.Join(dst, f))
		if err != nil {
			return nil, err
		}
		lines := strings.Split(string(b), "\n")
		tag := ""
		for i, l := range lines {
			if scenarioKeyword.MatchString(l) && i > 0 {
				tag = ""
				for _, t := range strings.Fields(lines[i-1]) {
					if strings.HasPrefix(t, unitPrefix) {
						tag = t
						seen[t] = true
					}
				}
			}
			if tag != "" {
				tags[fmt.Sprintf("%s:%d", f, i+1)] = tag
			}
		}
	}
	if len(seen) != len(units) {
		return nil, fmt.Errorf("tagged %d scenarios, found %d tags in the copy", len(units), len(seen))
	}
	return tags, nil
}

func unitFiles(units []scenarioUnit) []string {
	var out []string
	for _, u := range units {
		if !slices.Contains(out, u.File) {
			out = append(out, u.File)
		}
	}
	return out
}

// RunEnv is the environment a campaign gives conform run (runEnv).
func RunEnv() []string { return runEnv() }

// CPUOf is the CPU time a finished command used, its waited-for children
// included (cpuOf), for the kit campaigns' own runs.
func CPUOf(ps *os.ProcessState) time.Duration { return cpuOf(ps) }
