package report

import (
	"fmt"
	"strings"
)

// agentLoop reports whether a requirement counts towards the compliance
// level: seed rows of the deterministic-first profile do not.
func agentLoop(q RequirementResult) bool {
	return q.Profile != profileDeterministicFirst && q.Class != classSeed
}

// labelProfile names the profile a label speaks for: a plugin category's
// profile ("plugin", "model-provider", ...) when every counted row is of
// that one profile (conform plugin builds its reports from one profile
// alone), "agent-loop" otherwise.
func labelProfile(reqs []RequirementResult) string {
	one := ""
	for _, q := range reqs {
		if agentLoop(q) {
			if q.Profile == profileAgentLoop || (one != "" && q.Profile != one) {
				return profileAgentLoop
			}
			one = q.Profile
		}
	}
	if one == "" {
		return profileAgentLoop
	}
	return one
}

// compliance computes the level and its label; see Build for the rules.
func compliance(reqs []RequirementResult, opt BuildOptions) Compliance {
	var total, passed, partials, notTested, unverifiable, mustFail, mustGlue, mustError, shouldBad, mayBad, seeds int
	for _, q := range reqs {
		if !agentLoop(q) {
			seeds++
			continue
		}
		total++
		switch q.Status {
		case Pass:
			passed++
			if q.Partial {
				partials++
			}
		case NotTested:
			notTested++
		case Unverifiable:
			unverifiable++
		}
		bad := q.Status == Fail || q.Status == Error || q.Status == Skipped
		switch q.Class {
		case classMust:
			// A skipped MUST has already become fail in verdict.
			if q.GlueFail() {
				mustGlue++
			} else if q.Status == Fail || q.Status == Skipped {
				mustFail++
			} else if q.Status == Error {
				mustError++
			}
		case classShould:
			if bad {
				shouldBad++
			}
		case classMay:
			if bad {
				mayBad++
			}
		}
	}

	c := Compliance{
		NotTested:    notTested,
		Unverifiable: unverifiable,
		Partial:      partials,
		Complete:     notTested == 0 && unverifiable == 0 && !opt.Interrupted && opt.Selection == "" && opt.Shard == "",
	}
	noun := labelProfile(reqs)
	scope := fmt.Sprintf("%d %s %s", total, noun, plural(total, "requirement", "requirements"))
	apart := ""
	if seeds > 0 {
		apart = fmt.Sprintf("; the %d deterministic-first %s reported apart", seeds, plural(seeds, "row is", "rows are"))
	}
	checked := fmt.Sprintf("%d of %s checked%s", total-notTested, scope, apart)
	scope += apart
	switch {
	case opt.Interrupted:
		c.Level = LevelNone
		c.Label = fmt.Sprintf("no compliance claim: the run was interrupted before every scenario ran (%s)", checked)
		return c
	case opt.Shard != "":
		c.Level = LevelNone
		c.Label = fmt.Sprintf("no compliance claim: this is shard %s of the run; merge every shard (conform merge) for the verdict. It checked %s", opt.Shard, checkedList(reqs))
		return c
	case opt.Selection != "":
		c.Level = LevelNone
		c.Label = fmt.Sprintf("no compliance claim: only the scenarios selected by %q ran; they checked %s", opt.Selection, checkedList(reqs))
		return c
	case mustFail+mustGlue+mustError > 0:
		c.Level = LevelNone
		var parts []string
		if mustFail > 0 {
			parts = append(parts, fmt.Sprintf("%d MUST %s %s", mustFail, plural(mustFail, "requirement", "requirements"), plural(mustFail, "fails", "fail")))
		}
		if mustGlue > 0 { // the adapter's glue, not the loop: named apart
			parts = append(parts, fmt.Sprintf("%d MUST %s %s in the adapter's glue", mustGlue, plural(mustGlue, "requirement", "requirements"), plural(mustGlue, "fails", "fail")))
		}
		if mustError > 0 {
			parts = append(parts, fmt.Sprintf("%d MUST %s ended in error", mustError, plural(mustError, "requirement", "requirements")))
		}
		c.Label = "not compliant: " + strings.Join(parts, ", ") + " (of " + scope + ")"
		return c
	case passed == 0:
		c.Level = LevelNone
		c.Label = fmt.Sprintf("no compliance established: none of %s passed (partial: %d not tested, %d not verifiable)", scope, notTested, unverifiable)
		return c
	case shouldBad > 0:
		c.Level, c.Label = LevelMust, "MUST-compliant"
	case mayBad > 0:
		c.Level, c.Label = LevelShould, "SHOULD-compliant"
	default:
		c.Level, c.Label = LevelAll, "compliant at every level (MUST, SHOULD and MAY)"
	}
	full := passed - partials
	if partials+unverifiable+notTested == 0 && total == passed {
		c.Label += fmt.Sprintf(": all %d %s %s fully verified%s", total, noun, plural(total, "requirement", "requirements"), apart)
		return c
	}
	var parts []string
	if full > 0 {
		parts = append(parts, fmt.Sprintf("%d fully verified", full))
	}
	if partials > 0 {
		parts = append(parts, fmt.Sprintf("%d partially verified (clauses not observable over the wire, or checks not reached)", partials))
	}
	if unverifiable > 0 {
		parts = append(parts, fmt.Sprintf("%d not verifiable", unverifiable))
	}
	if notTested > 0 {
		parts = append(parts, fmt.Sprintf("%d not tested", notTested))
	}
	if others := total - passed - unverifiable - notTested; others > 0 {
		parts = append(parts, fmt.Sprintf("%d failing, skipped or in error below MUST", others))
	}
	if partials+unverifiable+notTested > 0 {
		// A partial suite must never read as full compliance.
		c.Label += " on what was tested (partial: "
	} else {
		c.Label += " ("
	}
	c.Label += strings.Join(parts, ", ") + ", of " + scope + ")"
	return c
}

// checkedList names the requirements a selected run gave a verdict, with
// their counts.
func checkedList(reqs []RequirementResult) string {
	var ids []string
	counts := map[Status]int{}
	for _, q := range reqs {
		if q.Status == NotTested {
			continue
		}
		ids = append(ids, q.ID)
		counts[q.Status]++
	}
	if len(ids) == 0 {
		return "no requirement"
	}
	var parts []string
	for _, st := range RequirementStatuses() {
		if counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
		}
	}
	return strings.Join(ids, ", ") + " (" + strings.Join(parts, ", ") + ")"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
