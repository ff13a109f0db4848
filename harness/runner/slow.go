package runner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentconform/conform/spec"
)

// slowTag marks a scenario that takes far longer than the rest (it waits
// out a real schedule, such as the shipped default retry count: seconds of
// backoff no fake can shorten). A run leaves such scenarios out unless
// Options.Slow is set, so the suite stays a matter of seconds; a pass of a
// requirement they serve is then partial, naming them. A selection made
// only of slow scenarios runs them: that is what was asked for.
const slowTag = "@slow"

// leaveOutSlow returns the keep predicate that drops the slow scenarios of
// refs (on top of keep), what each requirement loses, and a warning; all
// zero when nothing is left out.
func leaveOutSlow(cat *spec.Catalog, refs []ScenarioRef, keep func(ScenarioRef) bool) (func(ScenarioRef) bool, map[string][]string, string) {
	var slow, rest int
	leftOut := map[string][]string{}
	var names []string
	for _, r := range refs {
		if keep != nil && !keep(r) {
			continue
		}
		if !slices.Contains(r.Tags, slowTag) {
			rest++
			continue
		}
		slow++
		names = append(names, fmt.Sprintf("%s:%d", r.File, r.Line))
		for _, t := range r.Tags {
			if _, ok := cat.Get(strings.TrimPrefix(t, "@")); ok {
				id := strings.TrimPrefix(t, "@")
				leftOut[id] = append(leftOut[id], r.Name)
			}
		}
	}
	if slow == 0 || rest == 0 {
		return keep, nil, ""
	}
	pred := func(r ScenarioRef) bool {
		return !slices.Contains(r.Tags, slowTag) && (keep == nil || keep(r))
	}
	warn := fmt.Sprintf("%d slow %s left out (%s): conform run --slow runs %s", slow,
		plural(slow, "scenario", "scenarios"), strings.Join(names, ", "), plural(slow, "it", "them"))
	return pred, leftOut, warn
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
