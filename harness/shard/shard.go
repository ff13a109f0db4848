package shard

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Spec is one slice of a run: the K-th (1-based) of N.
type Spec struct{ K, N int }

// Parse reads "K/N". "" is the whole run (the zero Spec).
func Parse(s string) (Spec, error) {
	if s == "" {
		return Spec{}, nil
	}
	ks, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	k, kerr := strconv.Atoi(strings.TrimSpace(ks))
	n, nerr := strconv.Atoi(strings.TrimSpace(ns))
	switch {
	case !ok || kerr != nil || nerr != nil:
		return Spec{}, fmt.Errorf("%q is not K/N (e.g. 2/4: the second of four slices)", s)
	case n < 1 || n > 1000:
		return Spec{}, fmt.Errorf("%q: N must be between 1 and 1000", s)
	case k < 1 || k > n:
		return Spec{}, fmt.Errorf("%q: K must be between 1 and N (%d)", s, n)
	}
	return Spec{K: k, N: n}, nil
}

// Whole reports whether the spec is the whole run.
func (s Spec) Whole() bool { return s.N <= 1 }

func (s Spec) String() string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.K, s.N)
}

// Item is one scenario to place, named by its file:line.
type Item struct {
	Ref string
}

// Balance says how Assign balanced the slices.
type Balance string

// The two ways of balancing.
const (
	ByCount    Balance = "count"
	ByDuration Balance = "duration"
)

// Assign returns the refs of the items in slice s. Every item goes to
// exactly one slice, and the same items, durations and N always give the
// same slices, whatever order the items come in. With no durations (nil or
// empty), slices differ in size by at most one. With durations, items are
// placed longest first, each on the slice with the least time so far (ties:
// the lower slice); an item the durations do not know counts as their
// median, so a new scenario is neither free nor feared.
func Assign(items []Item, durations map[string]time.Duration, s Spec) ([]string, Balance) {
	sorted := slices.Clone(items)
	slices.SortFunc(sorted, func(a, b Item) int { return compareRefs(a.Ref, b.Ref) })
	sorted = slices.CompactFunc(sorted, func(a, b Item) bool { return a.Ref == b.Ref })
	if s.Whole() {
		return refs(sorted), ByCount
	}
	if len(durations) == 0 {
		var out []string
		for i, it := range sorted {
			if i%s.N == s.K-1 {
				out = append(out, it.Ref)
			}
		}
		return out, ByCount
	}
	typical := median(durations)
	weight := func(ref string) time.Duration {
		if d, ok := durations[ref]; ok {
			return max(d, time.Millisecond)
		}
		return typical
	}
	slices.SortStableFunc(sorted, func(a, b Item) int { return cmp.Compare(weight(b.Ref), weight(a.Ref)) })
	load := make([]time.Duration, s.N)
	var out []string
	for _, it := range sorted {
		lightest := 0
		for i := range load {
			if load[i] < load[lightest] {
				lightest = i
			}
		}
		load[lightest] += weight(it.Ref)
		if lightest == s.K-1 {
			out = append(out, it.Ref)
		}
	}
	slices.SortFunc(out, compareRefs)
	return out, ByDuration
}

func refs(items []Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Ref
	}
	return out
}

// compareRefs orders "file:line" by file, then by line as a number.
func compareRefs(a, b string) int {
	af, al := splitRef(a)
	bf, bl := splitRef(b)
	return cmp.Or(cmp.Compare(af, bf), cmp.Compare(al, bl), cmp.Compare(a, b))
}

func splitRef(ref string) (string, int) {
	i := strings.LastIndexByte(ref, ':')
	if i < 0 {
		return ref, 0
	}
	n, err := strconv.Atoi(ref[i+1:])
	if err != nil {
		return ref, 0
	}
	return ref[:i], n
}

func median(ds map[string]time.Duration) time.Duration {
	vs := make([]time.Duration, 0, len(ds))
	for _, d := range ds {
		vs = append(vs, max(d, time.Millisecond))
	}
	slices.Sort(vs)
	return vs[len(vs)/2]
}

// Seed is the seed of slice s of a fuzz campaign with seed base: distinct
// for each K of the same base (splitmix64 is a bijection of base+K), never
// 0 (which means "pick one"), and base itself for the whole campaign.
func Seed(base uint64, s Spec) uint64 {
	if s.Whole() {
		return base
	}
	z := base + uint64(s.K)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	if z == 0 {
		z = 1
	}
	return z
}

// Cases is slice s's share of a campaign of total cases: the shares differ
// by at most one and add up to total. A slice may get 0 when N > total.
func Cases(total int, s Spec) int {
	if s.Whole() {
		return total
	}
	n := total / s.N
	if s.K <= total%s.N {
		n++
	}
	return n
}
