package report

import (
	"fmt"
	"strings"
)

// requirementsLine and scenariosLine say the counts with what is counted:
// "106 requirements: 35 pass, …" and "321 scenarios: 160 pass, …", so
// that a reader never takes one for the other.
func requirementsLine(r *Report) string {
	n, parts := requirementCounts(r)
	return fmt.Sprintf("%s: %s", plural(n, "1 requirement", fmt.Sprintf("%d requirements", n)), parts)
}

func scenariosLine(r *Report) string {
	n, parts := scenarioTotals(r)
	return fmt.Sprintf("%s: %s", plural(n, "1 scenario", fmt.Sprintf("%d scenarios", n)), parts)
}

// countColumns are the columns of every count table of requirement
// verdicts for people: a partial pass has a column of its own, as it has a
// filter of its own, so "pass" counts the full passes only and the columns
// add up to the requirements counted.
var countColumns = []string{"pass", "partial", "fail", "error", "skipped", "unverifiable", "not_tested"}

// columnCounts spreads verdict counts over countColumns; partial is how
// many of the passes are partial.
func columnCounts(c map[Status]int, partial int) []int {
	out := make([]int, len(countColumns))
	for i, col := range countColumns {
		switch col {
		case "pass":
			out[i] = c[Pass] - partial
		case "partial":
			out[i] = partial
		default:
			out[i] = c[Status(col)]
		}
	}
	return out
}

// columnWord is a count column's heading in words.
func columnWord(col string) string {
	if col == "partial" {
		return "pass (partial)"
	}
	return word(Status(col))
}

// partialPasses counts the partial passes per area and in all.
func partialPasses(r *Report) (byArea map[string]int, total int) {
	byArea = map[string]int{}
	for _, q := range r.Requirements {
		if q.Status == Pass && q.Partial {
			byArea[q.Area]++
			total++
		}
	}
	return byArea, total
}

// requirementCounts counts the requirements and says what their verdicts
// are: 106 and "35 pass, 5 pass (partial), 55 fail, …" (every column,
// zero or not, so that two reports read alike).
func requirementCounts(r *Report) (int, string) {
	_, partial := partialPasses(r)
	counts := columnCounts(r.Summary.Requirements, partial)
	total := 0
	parts := make([]string, len(countColumns))
	for i, col := range countColumns {
		total += counts[i]
		parts[i] = fmt.Sprintf("%d %s", counts[i], columnWord(col))
	}
	return total, strings.Join(parts, ", ")
}

// scenarioTotals counts the scenarios run and says what their outcomes
// are: 321 and "160 pass, 156 fail, …".
func scenarioTotals(r *Report) (int, string) {
	total := 0
	var parts []string
	for _, st := range ScenarioStatuses() {
		n := r.Summary.Scenarios[st]
		total += n
		if n == 0 && (st == NotReached || st == NotRun) {
			continue // rare statuses are named only when they occur
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, word(st)))
	}
	return total, strings.Join(parts, ", ")
}
