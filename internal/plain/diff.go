package plain

import "strings"

// diffContext is how many unchanged lines a diff keeps around each change.
const diffContext = 3

// maxDiffCells bounds the line-matching table (lines of want times lines of
// got); past it, Diff shows both values whole instead of matching lines.
const maxDiffCells = 4_000_000

// Diff compares want and got by their indented JSON. It returns "" when
// they are equal, else the lines of both with "- " before a line only want
// has, "+ " before one only got has and "  " before one both have; runs of
// more than a few unchanged lines are cut to "  …". Callers name what "-"
// and "+" stand for in their message ("-returned +received").
func Diff(want, got any) string {
	a, b := lines(want), lines(got)
	if strings.Join(a, "\n") == strings.Join(b, "\n") {
		return ""
	}
	if len(a)*len(b) > maxDiffCells {
		return "- " + strings.Join(a, "\n- ") + "\n+ " + strings.Join(b, "\n+ ")
	}
	return render(edits(a, b))
}

func lines(v any) []string {
	raw, err := marshal(v, "  ")
	if err != nil {
		return []string{JSON(v)}
	}
	return strings.Split(string(raw), "\n")
}

type edit struct {
	op   byte // ' ', '-' or '+'
	line string
}

// edits is a shortest edit script from a to b by the longest common
// subsequence of lines (the inputs are small: a payload, a list of
// requests).
func edits(a, b []string) []edit {
	n, m := len(a), len(b)
	// lcs[i][j] is the length of the LCS of a[i:] and b[j:].
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []edit
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			out = append(out, edit{' ', a[i]})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, edit{'-', a[i]})
			i++
		default:
			out = append(out, edit{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, edit{'-', a[i]})
	}
	for ; j < m; j++ {
		out = append(out, edit{'+', b[j]})
	}
	return out
}

// render writes the edits, keeping diffContext unchanged lines around each
// change and one "…" line for each run left out.
func render(es []edit) string {
	keep := make([]bool, len(es))
	for i, e := range es {
		if e.op == ' ' {
			continue
		}
		for k := max(0, i-diffContext); k <= min(len(es)-1, i+diffContext); k++ {
			keep[k] = true
		}
	}
	var b strings.Builder
	skipped := false
	for i, e := range es {
		if !keep[i] {
			if !skipped {
				b.WriteString("  …\n")
				skipped = true
			}
			continue
		}
		skipped = false
		b.WriteByte(e.op)
		b.WriteByte(' ')
		b.WriteString(e.line)
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}
