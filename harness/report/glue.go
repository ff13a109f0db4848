package report

import (
	"maps"
	"slices"
)

// The glue label (PROTOCOL.md §15): a kernel that adapts an agent framework
// names the requirements its own glue decides. Every writer shows the label
// and the reason beside the verdict, and counts a glue failure apart, as
// "fail (glue)", so that the adapter's shortcomings are never read as the
// framework's.

// glueFailWord is how every writer names a glue-labelled failure.
const glueFailWord = "fail (glue)"

// statusWord is q's status in words, with " (glue)" when the kernel
// labelled it glue.
func statusWord(q RequirementResult) string {
	if q.Glue != "" {
		return word(q.Status) + " (glue)"
	}
	return word(q.Status)
}

// glueIDs returns the requirement IDs the kernel labelled glue, sorted.
func glueIDs(k Kernel) []string {
	return slices.Sorted(maps.Keys(k.Glue))
}

// hasGlue reports whether the report has a glue label to show.
func (r *Report) hasGlue() bool {
	return len(glueRequirementIDs(r)) > 0 || r.Summary.GlueFail > 0
}

// glueRequirementIDs are the kernel's glue labels and the requirements that
// only conform's bridge kept from being judged (their checks not reached,
// glue), sorted.
func glueRequirementIDs(r *Report) []string {
	ids := glueIDs(r.Kernel)
	for _, q := range r.Requirements {
		if q.Glue != "" && !slices.Contains(ids, q.ID) {
			ids = append(ids, q.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// allGlue reports whether every check of refs was not reached because of
// glue (CheckRef.Glue).
func allGlue(refs []CheckRef) bool {
	return len(refs) > 0 && countGlue(refs) == len(refs)
}

func countGlue(refs []CheckRef) int {
	n := 0
	for _, c := range refs {
		if c.Glue {
			n++
		}
	}
	return n
}
