package pluginconform

import (
	"strconv"

	"github.com/agentconform/conform/pluginconform/kit"
)

// verdicts and found are the shared property machinery's (package kit).
type (
	verdicts = kit.Verdicts
	found    = kit.Found
)

// property runs fn over generated cases (kit.Property) and counts them in
// the run's figures.
func (r *run) property(cases int, fn kit.CaseFn) kit.PropResult {
	res := kit.Property(cases, fn)
	r.stats.GeneratedCalls += res.Calls
	r.stats.GeneratedTime += res.Time
	return res
}

func jsonText(v any) string { return kit.JSONText(v) }

func itoa(n int) string { return strconv.Itoa(n) }
