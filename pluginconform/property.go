package pluginconform

import (
	"encoding/json"
	"slices"
	"sort"
	"time"

	"pgregory.net/rapid"

	"github.com/agentconform/conform/harness/report"
	"github.com/agentconform/conform/pluginconform/kit"
)

// found is a requirement's failure on generated input, shrunk.
type found struct {
	msg  string
	args map[string]any
	note string
}

// propResult is what a property learned, per requirement.
type propResult struct {
	failed  map[string]found
	held    map[string]int // calls on which the requirement held
	stopped string         // why the property stopped early (a hang, a crash)
	blocked bool           // an interactive call waited for an answer
	calls   int
}

// caseFn runs one generated case: it draws arguments, calls the plugin and
// judges. note describes the arguments beyond their JSON (how they were
// broken); stop ends the property (the plugin hung or died).
type caseFn func(t *rapid.T) (v verdicts, args map[string]any, note, stop string)

// property runs fn over generated cases with rapid. When a requirement
// fails, rapid shrinks the arguments while that same requirement still
// fails; then the property runs again to look for other requirements that
// fail, until a round finds nothing new.
func (r *run) property(cases int, fn caseFn) propResult {
	res := propResult{failed: map[string]found{}, held: map[string]int{}}
	kit.SetChecks(cases)
	start := time.Now()
	defer func() { r.stats.GeneratedTime += time.Since(start) }()
	for round := 0; round < 10 && res.stopped == ""; round++ {
		target := ""
		var last *found
		rapid.Check(&kit.TB{}, func(t *rapid.T) {
			if res.stopped != "" {
				return
			}
			v, args, note, stop := fn(t)
			res.calls++
			r.stats.GeneratedCalls++
			if stop != "" {
				res.stopped = stop
				return
			}
			var failing []string
			for id, msg := range v {
				if msg == "" {
					res.held[id]++
				} else if _, known := res.failed[id]; !known {
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
				return // smaller, but failing something else
			}
			last = &found{msg: v[target], args: args, note: note}
			t.Fatalf("%s", v[target])
		})
		if last == nil {
			break
		}
		res.failed[target] = *last
	}
	return res
}

// record turns a property's result into checks of s, one per requirement
// in ids; what says what the property did, unreached why a requirement
// that was never judged was not.
//
// An id in optional gets a check only when a call judged it: "no error was
// sent" says nothing against the error rules, and those rules get their
// verdict wherever errors do come (the run notes any never judged at all).
func (res propResult) record(r *run, s *kit.Scenario, what string, ids []string, unreached map[string]string, optional ...string) {
	for _, id := range ids {
		_, failed := res.failed[id]
		if !failed && res.held[id] == 0 && res.stopped == "" && slices.Contains(optional, id) {
			continue
		}
		if failed || res.held[id] > 0 {
			r.rec.Judged[id] = true
		}
		step := what + " (" + id + ")"
		if f, ok := res.failed[id]; ok {
			msg := f.msg + "; shrunk arguments: " + clip(jsonText(f.args), 400)
			if f.note != "" {
				msg += " (" + f.note + ")"
			}
			s.Fail(step, msg, id)
			continue
		}
		if n := res.held[id]; n > 0 {
			s.Add(report.Pass, step, "held on "+itoa(n)+" generated "+plural(n, "call", "calls"), id)
			continue
		}
		why := unreached[id]
		if why == "" {
			why = "no generated call reached it"
		}
		if res.stopped != "" {
			why = "the property stopped early: " + res.stopped
		}
		s.NotReached(step, why, id)
	}
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "(unprintable)"
	}
	return string(b)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
