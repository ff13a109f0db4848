package runner

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// stepPattern is a step definition with the literal text every match must
// begin with ("" when there is none to rely on).
type stepPattern struct {
	re     *regexp.Regexp
	prefix string
}

// anchoredPrefix is the case-sensitive literal that follows a leading ^ of
// the pattern: a text that does not begin with it cannot match. CheckSteps
// tries every step against every pattern (some 3,500 steps, 450
// patterns), and a regexp match under the race detector costs enough that
// this was most of a run's start-up (issue 25); comparing a prefix first
// leaves a handful of real matches per step.
func anchoredPrefix(expr string) string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return ""
	}
	re = re.Simplify()
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 || re.Sub[0].Op != syntax.OpBeginText {
		return ""
	}
	var b strings.Builder
	for _, s := range re.Sub[1:] {
		if s.Op != syntax.OpLiteral || s.Flags&syntax.FoldCase != 0 {
			break
		}
		b.WriteString(string(s.Rune))
	}
	return b.String()
}

func indexPatterns(res []*regexp.Regexp) []stepPattern {
	out := make([]stepPattern, len(res))
	for i, re := range res {
		out[i] = stepPattern{re: re, prefix: anchoredPrefix(re.String())}
	}
	return out
}

// matchingSteps is every pattern the text matches, by regexp, among those whose
// prefix it begins with.
func matchingSteps(pats []stepPattern, text string) []string {
	var out []string
	for _, p := range pats {
		if strings.HasPrefix(text, p.prefix) && p.re.MatchString(text) {
			out = append(out, p.re.String())
		}
	}
	return out
}
