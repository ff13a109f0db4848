package report

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// sessionID matches the session IDs the harness gives ("conform-s242",
// "conform-s276/c1", "conform-s244-second"): every scenario has its own, so
// two scenarios that fail alike name different ones.
var sessionID = regexp.MustCompile(`conform-s[0-9]+[A-Za-z0-9/_.-]*`)

// checkGroup is the failing checks of one requirement that say the same
// thing (the same step text and message, session IDs aside) in different
// scenarios: mostly the rows of one Scenario Outline's Examples, whose
// checks share a line. The writers show the text once and then what tells
// the scenarios apart (the Examples row, the session), instead of one
// near-identical line per scenario.
type checkGroup struct {
	CheckRef
	// Also are the other checks of the group, in report order.
	Also []CheckRef
}

// foldChecks groups refs by step and message, keeping the order of first
// appearance.
func foldChecks(refs []CheckRef) []checkGroup {
	var out []checkGroup
	at := map[[2]string]int{}
	for _, c := range refs {
		k := [2]string{c.Step, sessionID.ReplaceAllString(c.Message, "conform-s*")}
		if i, ok := at[k]; ok {
			out[i].Also = append(out[i].Also, c)
			continue
		}
		at[k] = len(out)
		out = append(out, checkGroup{CheckRef: c})
	}
	return out
}

// members is every check of the group, the first included.
func (g checkGroup) members() []CheckRef {
	return append([]CheckRef{g.CheckRef}, g.Also...)
}

// place names one check of a group by what tells it from the others: its
// scenario, said to be an Examples row when the scenario's line comes
// after the check's (an outline's row lies below its steps), and the
// sessions its message names.
func place(c CheckRef) string {
	var notes []string
	if i := strings.LastIndexByte(c.Scenario, ':'); i >= 0 {
		if line, err := strconv.Atoi(c.Scenario[i+1:]); err == nil && c.Line > 0 && line > c.Line {
			notes = append(notes, "Examples row")
		}
	}
	seen := map[string]bool{}
	for _, id := range sessionID.FindAllString(c.Message, -1) {
		if !seen[id] {
			seen[id] = true
			notes = append(notes, "session "+id)
		}
	}
	if len(notes) == 0 {
		return c.Scenario
	}
	return c.Scenario + " (" + strings.Join(notes, ", ") + ")"
}

// sameIn says where else a folded check failed alike, "" for a group of
// one: "the same in 3 scenarios: a.feature:30 (Examples row), ...".
func (g checkGroup) sameIn() string {
	if len(g.Also) == 0 {
		return ""
	}
	ms := g.members()
	places := make([]string, len(ms))
	for i, c := range ms {
		places[i] = place(c)
	}
	return fmt.Sprintf("the same in %d scenarios: %s", len(ms), strings.Join(places, ", "))
}
