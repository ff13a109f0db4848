package main

import (
	"fmt"
	"regexp"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/spec"
)

// kernelProfile is what reportProfile calls a kernel run's report: its rows
// are of the agent-loop and deterministic-first profiles together.
const kernelProfile = "kernel"

// reportProfile names the profile a report was judged against: the one
// plugin-category profile all its rows share (conform plugin builds a
// report from one profile alone), or kernelProfile.
func reportProfile(r *report.Report) string {
	if len(r.Requirements) == 0 {
		return kernelProfile
	}
	p := r.Requirements[0].Profile
	if _, err := spec.LoadProfile(p); err != nil {
		return kernelProfile
	}
	for _, q := range r.Requirements {
		if q.Profile != p {
			return kernelProfile
		}
	}
	return p
}

// profileCatalog is the catalog a report of profile p is decided with.
func profileCatalog(p string) (*spec.Catalog, error) {
	if p == kernelProfile {
		return spec.Load()
	}
	return spec.LoadProfile(p)
}

// describeProfile is p for a sentence: "a model-provider report".
func describeProfile(p string) string {
	if p == kernelProfile {
		return "a kernel report (agent-loop profile)"
	}
	return fmt.Sprintf("a %s report (conform plugin)", p)
}

// oneProfile refuses reports of different profiles, naming both: a model
// provider's rows and a context provider's have nothing to fold or compare.
func oneProfile(what string, names []string, reps []*report.Report) (string, error) {
	first := reportProfile(reps[0])
	for i, r := range reps[1:] {
		if p := reportProfile(r); p != first {
			return "", fmt.Errorf("%s is %s and %s is %s: %s takes reports of one profile (one plugin category, or kernel runs)",
				names[0], describeProfile(first), names[i+1], describeProfile(p), what)
		}
	}
	return first, nil
}

// pluginShardSeed reads the base seed a plugin shard report names (the
// warning conform plugin --shard writes), 0 when it names none.
func pluginShardSeed(r *report.Report) uint64 {
	for _, w := range r.Warnings {
		if m := shardSeedRe.FindStringSubmatch(w); m != nil {
			var s uint64
			_, _ = fmt.Sscan(m[1], &s)
			return s
		}
	}
	return 0
}

var shardSeedRe = regexp.MustCompile(`of the campaign of --seed (\d+)`)
