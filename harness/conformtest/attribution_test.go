package conformtest

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentconform/conform/harness/fuzz"
	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/spec"
)

// checkAttribution keeps the suite honest about which check proves what.
// It reads the run of the embedded suite against the reference kernel
// (which declares every capability, so every scenario runs and every check
// is evaluated) that TestReferenceKernel makes, and fails when:
//   - a check proves none of its scenario's requirements;
//   - a scenario is tagged with a requirement none of its checks proves;
//   - a MUST is proven only inside scenarios gated on an optional
//     capability, so it would silently drop for a kernel without it;
//   - a check's registration names a requirement that no built-in
//     scenario ever proves with it (a declared-but-never-proven step/ID
//     pair): the declaration says more than any scenario shows, and a
//     custom scenario tagged with that ID would get a verdict the suite
//     never exercised.
func checkAttribution(t *testing.T, r *report.Report) {
	cat, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	decls := declaredChecks(t)
	provenPair := map[string]bool{} // pattern + "\x00" + ID, proven somewhere
	ungated := map[string]bool{}    // MUSTs proven in a scenario no capability gates
	for _, s := range r.Scenarios {
		for _, c := range s.Checks {
			d, err := declOf(decls, c.Step)
			if err != nil {
				t.Errorf("%s line %d: %v", s.Ref(), c.Line, err)
				continue
			}
			for _, id := range c.Requirements {
				provenPair[d.pattern.String()+"\x00"+id] = true
			}
		}
		if s.Status == report.Error || s.Status == report.Skipped {
			t.Errorf("%s: %s (%s); every check must be evaluated", s.Ref(), s.Status, s.Failure)
			continue
		}
		proven := map[string]bool{}
		for _, c := range s.Checks {
			if len(c.Requirements) == 0 {
				t.Errorf("%s line %d: check %q proves none of the scenario's requirements %v", s.Ref(), c.Line, c.Step, s.Requirements)
			}
			for _, id := range c.Requirements {
				proven[id] = true
			}
		}
		gate := ""
		for _, id := range s.Requirements {
			if q, ok := cat.Get(id); ok && q.Capability != "" {
				gate = q.Capability
			}
		}
		for _, id := range s.Requirements {
			if !proven[id] {
				t.Errorf("%s: tagged @%s, but none of its checks proves %s", s.Ref(), id, id)
			}
			if proven[id] && gate == "" {
				ungated[id] = true
			}
		}
	}
	for _, x := range fuzz.AllChecks() {
		// The invariant steps prove their requirements in generated cases,
		// each tagged with exactly the invariants' IDs
		// (TestAttributionOfGeneratedCases in harness/fuzz).
		if d, err := declOf(decls, x.Text); err == nil {
			provenPair[d.pattern.String()+"\x00"+x.Requirement] = true
		}
	}
	for _, d := range decls {
		for _, id := range d.ids {
			if !provenPair[d.pattern.String()+"\x00"+id] {
				t.Errorf("%s: the check %s declares %s, but no built-in scenario proves %s with it", d.where, d.pattern, id, id)
			}
		}
	}
	for _, q := range cat.Requirements {
		if q.Class != "must" || ungated[q.ID] {
			continue
		}
		covered := slices.ContainsFunc(r.Requirements, func(x report.RequirementResult) bool {
			return x.ID == q.ID && len(x.Scenarios) > 0
		})
		if covered {
			t.Errorf("%s [%s] is proven only in scenarios gated on an optional capability: a kernel without it would never be checked on it (scenarios: %s)",
				q.ID, q.Level, strings.Join(scenariosOf(r, q.ID), ", "))
		}
	}
}

func scenariosOf(r *report.Report, id string) []string {
	for _, q := range r.Requirements {
		if q.ID == id {
			return q.Scenarios
		}
	}
	return nil
}
