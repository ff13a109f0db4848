package runner

import (
	"fmt"
	"io/fs"
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
// the selection refs (on top of keep, a shard's slice), what each
// requirement loses, and a warning; keep unchanged and the rest zero when
// nothing is left out. It looks at the whole selection, not at the slice,
// so that every shard of a run says the same as the run would.
func leaveOutSlow(cat *spec.Catalog, refs []ScenarioRef, keep func(ScenarioRef) bool) (func(ScenarioRef) bool, map[string][]string, string) {
	slow := slowOf(refs)
	if len(slow) == 0 || len(slow) == len(refs) {
		return keep, nil, ""
	}
	leftOut := map[string][]string{}
	var names []string
	for _, r := range slow {
		names = append(names, fmt.Sprintf("%s:%d", r.File, r.Line))
		for _, t := range r.Tags {
			if id := strings.TrimPrefix(t, "@"); id != t {
				if _, ok := cat.Get(id); ok {
					leftOut[id] = append(leftOut[id], r.Name)
				}
			}
		}
	}
	pred := func(r ScenarioRef) bool {
		return !slices.Contains(r.Tags, slowTag) && (keep == nil || keep(r))
	}
	warn := fmt.Sprintf("%d slow %s left out (%s): conform run --slow runs %s", len(slow),
		plural(len(slow), "scenario", "scenarios"), strings.Join(names, ", "), plural(len(slow), "it", "them"))
	return pred, leftOut, warn
}

func slowOf(refs []ScenarioRef) []ScenarioRef {
	var out []ScenarioRef
	for _, r := range refs {
		if slices.Contains(r.Tags, slowTag) {
			out = append(out, r)
		}
	}
	return out
}

// SelectRun is Select narrowed to the scenarios a run with these settings
// runs: without slow, the slow ones are left out (unless they are all the
// selection has). A sharded run splits this list, so each slice is a slice
// of what one run would run.
func SelectRun(fsys fs.FS, root, tags string, slow bool) ([]ScenarioRef, error) {
	refs, err := Select(fsys, root, tags)
	if err != nil || slow {
		return refs, err
	}
	if s := slowOf(refs); len(s) > 0 && len(s) < len(refs) {
		refs = slices.DeleteFunc(refs, func(r ScenarioRef) bool { return slices.Contains(r.Tags, slowTag) })
	}
	return refs, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
