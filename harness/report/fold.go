package report

import (
	"fmt"
	"strconv"
	"strings"
)

// checkGroup is the failing checks of one requirement that say the same
// thing (the same step text and message) in different scenarios: mostly
// the rows of one Scenario Outline's Examples, whose checks share a line.
// The writers show the text once and then what tells the scenarios apart,
// instead of one identical line per scenario.
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
		k := [2]string{c.Step, c.Message}
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
// after the check's (an outline's row lies below its steps).
func place(c CheckRef) string {
	if i := strings.LastIndexByte(c.Scenario, ':'); i >= 0 {
		if line, err := strconv.Atoi(c.Scenario[i+1:]); err == nil && c.Line > 0 && line > c.Line {
			return c.Scenario + " (Examples row)"
		}
	}
	return c.Scenario
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
