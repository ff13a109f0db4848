package provkit

import (
	"fmt"
	"slices"
	"sort"

	"pgregory.net/rapid"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/pluginconform/kit"
)

// Verdicts maps a requirement to "" (held on this case) or why it failed;
// a requirement absent was not judged on this case.
type Verdicts map[string]string

// Set keeps the first failure of id on a case.
func (v Verdicts) Set(id, msg string) {
	if old, ok := v[id]; ok && old != "" {
		return
	}
	v[id] = msg
}

// Found is a requirement's failure on generated input, shrunk.
type Found struct{ Msg, Input string }

// PropResult is what a property learned, per requirement.
type PropResult struct {
	Failed  map[string]Found
	Held    map[string]int
	Stopped string // why the property stopped early (a hang, a crash)
	Calls   int
}

// CaseFn runs one generated case: it draws an input, calls the plugin and
// judges; input describes what was drawn, stop ends the property.
type CaseFn func(t *rapid.T) (v Verdicts, input, stop string)

// Property runs fn over cases generated cases. When a requirement fails,
// rapid shrinks the input while that same requirement still fails; then
// the property runs again for other failing requirements, until a round
// finds nothing new.
func Property(cases int, fn CaseFn) PropResult {
	res := PropResult{Failed: map[string]Found{}, Held: map[string]int{}}
	kit.SetChecks(cases)
	for round := 0; round < 10 && res.Stopped == ""; round++ {
		target := ""
		var last *Found
		rapid.Check(&kit.TB{}, func(t *rapid.T) {
			if res.Stopped != "" {
				return
			}
			v, input, stop := fn(t)
			res.Calls++
			if stop != "" {
				res.Stopped = stop
				return
			}
			var failing []string
			for id, msg := range v {
				if msg == "" {
					res.Held[id]++
				} else if _, known := res.Failed[id]; !known {
					failing = append(failing, id)
				}
			}
			if len(failing) == 0 {
				return
			}
			sort.Strings(failing)
			if target == "" {
				target = failing[0]
			}
			if !slices.Contains(failing, target) {
				return
			}
			last = &Found{Msg: v[target], Input: input}
			t.Fatalf("%s", v[target])
		})
		if last == nil {
			break
		}
		res.Failed[target] = *last
	}
	return res
}

// Record turns the result into checks of s, one per id; what says what
// the property did, unreached why an id never judged was not. An id in
// optional gets a check only when a case judged it.
func (res PropResult) Record(s *kit.Scenario, what string, ids []string, unreached map[string]string, optional ...string) {
	for _, id := range ids {
		f, failed := res.Failed[id]
		n := res.Held[id]
		if !failed && n == 0 && res.Stopped == "" && slices.Contains(optional, id) {
			continue
		}
		step := what + " (" + id + ")"
		switch {
		case failed:
			s.Fail(step, f.Msg+"; shrunk input: "+Clip(f.Input, 500), id)
		case n > 0:
			s.Add(report.Pass, step, fmt.Sprintf("held on %d generated %s", n, Plural(n, "case", "cases")), id)
		default:
			why := unreached[id]
			if why == "" {
				why = "no generated case reached it"
			}
			if res.Stopped != "" {
				why = "the property stopped early: " + res.Stopped
			}
			s.NotReached(step, why, id)
		}
	}
}
