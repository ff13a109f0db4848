package kit

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"time"

	"pgregory.net/rapid"

	"github.com/agentconform/conform/harness/report"
)

// Verdicts maps a requirement to "" (held on this call) or why it failed.
// A requirement absent from the map was not judged on this call.
type Verdicts map[string]string

// SetOnce keeps the first failure of a requirement on a call.
func (v Verdicts) SetOnce(id, msg string) {
	if old, ok := v[id]; ok && old != "" {
		return
	}
	v[id] = msg
}

// Found is a requirement's failure on generated input, shrunk.
type Found struct {
	Msg   string
	Input any
	Note  string
}

// PropResult is what a property learned, per requirement.
type PropResult struct {
	Failed  map[string]Found
	Held    map[string]int // calls on which the requirement held
	Stopped string         // why the property stopped early (a hang, a crash)
	Calls   int
	Time    time.Duration
}

// CaseFn runs one generated case: it draws an input, calls the plugin and
// judges. note describes the input beyond its JSON; stop ends the property
// (the plugin hung or died).
type CaseFn func(t *rapid.T) (v Verdicts, input any, note, stop string)

// Property runs fn over generated cases with rapid. When a requirement
// fails, rapid shrinks the input while that same requirement still fails;
// then the property runs again to look for other requirements that fail,
// until a round finds nothing new.
func Property(cases int, fn CaseFn) (res PropResult) {
	res = PropResult{Failed: map[string]Found{}, Held: map[string]int{}}
	SetChecks(cases)
	start := time.Now()
	defer func() { res.Time = time.Since(start) }()
	for round := 0; round < 10 && res.Stopped == ""; round++ {
		target := ""
		var last *Found
		rapid.Check(&TB{}, func(t *rapid.T) {
			if res.Stopped != "" {
				return
			}
			v, input, note, stop := fn(t)
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
				return // smaller, but failing something else
			}
			last = &Found{Msg: v[target], Input: input, Note: note}
			t.Fatalf("%s", v[target])
		})
		if last == nil {
			break
		}
		res.Failed[target] = *last
	}
	return res
}

// Record turns a property's result into checks of s, one per requirement
// in ids; what says what the property did, unreached why a requirement
// that was never judged was not.
//
// An id in optional gets a check only when a call judged it: "no error was
// sent" says nothing against the error rules, and those rules get their
// verdict wherever errors do come.
func (res PropResult) Record(rec *Recorder, s *Scenario, what string, ids []string, unreached map[string]string, optional ...string) {
	for _, id := range ids {
		_, failed := res.Failed[id]
		if !failed && res.Held[id] == 0 && res.Stopped == "" && slices.Contains(optional, id) {
			continue
		}
		if failed || res.Held[id] > 0 {
			rec.Judged[id] = true
		}
		step := what + " (" + id + ")"
		if f, ok := res.Failed[id]; ok {
			msg := f.Msg
			if f.Input != nil { // nil: a finding over every case, not one input
				msg += "; shrunk input: " + Clip(JSONText(f.Input), 400)
			}
			if f.Note != "" {
				msg += " (" + f.Note + ")"
			}
			s.Fail(step, msg, id)
			continue
		}
		if n := res.Held[id]; n > 0 {
			s.Add(report.Pass, step, "held on "+strconv.Itoa(n)+" generated "+Plural(n, "call", "calls"), id)
			continue
		}
		why := unreached[id]
		if why == "" {
			why = "no generated call reached it"
		}
		if res.Stopped != "" {
			why = "the property stopped early: " + res.Stopped
		}
		s.NotReached(step, why, id)
	}
}

// JSONText is v as JSON, for a message.
func JSONText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "(unprintable)"
	}
	return string(b)
}

// Clip shortens s to n bytes, marking the cut.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Plural picks one or many by n.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
