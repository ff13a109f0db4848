package steps

import (
	"regexp"
	"sort"
	"sync"
)

// stepRE compiles a step pattern once per process. godog compiles a string
// pattern on every registration, that is for every scenario; with a few
// hundred steps that compilation is most of a short scenario's CPU time,
// which matters when conform fuzz runs thousands of one-scenario features.
// godog accepts the compiled *regexp.Regexp as it is.
func stepRE(pattern string) *regexp.Regexp {
	if re, ok := stepREs.Load(pattern); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(pattern)
	stepREs.Store(pattern, re)
	return re
}

var stepREs sync.Map

// Patterns returns every step pattern registered so far, sorted. Every
// registration goes through stepRE, so after one call of Register this is
// the whole step library.
func Patterns() []*regexp.Regexp {
	var out []*regexp.Regexp
	stepREs.Range(func(_, v any) bool {
		out = append(out, v.(*regexp.Regexp))
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
