package shard

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]Spec{"": {}, "1/1": {1, 1}, "2/4": {2, 4}, " 3 / 3 ": {3, 3}} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0/4", "5/4", "4", "a/b", "1/0", "-1/4", "1/4/2", "1/1001"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) accepted", in)
		}
	}
}

func items(n int) []Item {
	out := make([]Item, n)
	for i := range out {
		out[i] = Item{Ref: fmt.Sprintf("f%d.feature:%d", i%3, 10+i)}
	}
	return out
}

// Every item lands in exactly one slice, whatever the order the items come
// in, and the slices are balanced: by count within one item, by duration
// within the heaviest item (the greedy bound).
func TestAssignPartitionsDeterministically(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 60).Draw(t, "items")
		shards := rapid.IntRange(1, 8).Draw(t, "shards")
		its := items(n)
		var durations map[string]time.Duration
		if rapid.Bool().Draw(t, "by duration") && n > 0 {
			durations = map[string]time.Duration{}
			for _, it := range its {
				if rapid.IntRange(0, 4).Draw(t, "known") > 0 {
					durations[it.Ref] = time.Duration(rapid.IntRange(1, 5000).Draw(t, "ms")) * time.Millisecond
				}
			}
		}
		shuffled := slices.Clone(its)
		for i := len(shuffled) - 1; i > 0; i-- {
			j := rapid.IntRange(0, i).Draw(t, "swap")
			shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
		}
		seen := map[string]int{}
		var sizes []int
		var loads []time.Duration
		for k := 1; k <= shards; k++ {
			a, _ := Assign(its, durations, Spec{k, shards})
			b, _ := Assign(shuffled, durations, Spec{k, shards})
			if !slices.Equal(a, b) {
				t.Fatalf("slice %d/%d depends on input order: %v vs %v", k, shards, a, b)
			}
			for _, r := range a {
				seen[r]++
			}
			sizes = append(sizes, len(a))
			var load time.Duration
			for _, r := range a {
				load += weightOf(r, durations)
			}
			loads = append(loads, load)
		}
		for _, it := range its {
			if seen[it.Ref] != 1 {
				t.Fatalf("%s is in %d slices", it.Ref, seen[it.Ref])
			}
		}
		if len(seen) != n {
			t.Fatalf("slices hold %d items, want %d", len(seen), n)
		}
		if len(durations) == 0 && shards > 1 && slices.Max(sizes)-slices.Min(sizes) > 1 {
			t.Fatalf("count balance: sizes %v", sizes)
		}
		if len(durations) > 0 && shards > 1 {
			heaviest := time.Duration(0)
			for _, it := range its {
				heaviest = max(heaviest, weightOf(it.Ref, durations))
			}
			if slices.Max(loads)-slices.Min(loads) > heaviest {
				t.Fatalf("duration balance: loads %v, heaviest item %v", loads, heaviest)
			}
		}
	})
}

func weightOf(ref string, durations map[string]time.Duration) time.Duration {
	if len(durations) == 0 {
		return 1
	}
	if d, ok := durations[ref]; ok {
		return max(d, time.Millisecond)
	}
	return median(durations)
}

func TestAssignByDurationSeparatesTheSlowOnes(t *testing.T) {
	its := []Item{{"a:1"}, {"a:2"}, {"a:3"}, {"a:4"}}
	d := map[string]time.Duration{"a:1": 10 * time.Second, "a:2": 10 * time.Second, "a:3": time.Second, "a:4": time.Second}
	one, how := Assign(its, d, Spec{1, 2})
	two, _ := Assign(its, d, Spec{2, 2})
	if how != ByDuration || !slices.Equal(one, []string{"a:1", "a:3"}) || !slices.Equal(two, []string{"a:2", "a:4"}) {
		t.Fatalf("got %v and %v (%s)", one, two, how)
	}
	// By count, round robin in file:line order (a:10 after a:9).
	its = []Item{{"a:10"}, {"a:9"}, {"b:1"}}
	one, how = Assign(its, nil, Spec{1, 2})
	if how != ByCount || !slices.Equal(one, []string{"a:9", "b:1"}) {
		t.Fatalf("by count: %v (%s)", one, how)
	}
}

func TestSeedsAndCases(t *testing.T) {
	seen := map[uint64]bool{}
	for k := 1; k <= 1000; k++ {
		s := Seed(42, Spec{k, 1000})
		if s == 0 || seen[s] {
			t.Fatalf("seed of slice %d: %d (zero or repeated)", k, s)
		}
		seen[s] = true
		if Seed(42, Spec{k, 1000}) != s {
			t.Fatal("seed not deterministic")
		}
	}
	if Seed(42, Spec{}) != 42 {
		t.Fatal("the whole campaign keeps its seed")
	}
	for _, total := range []int{0, 1, 3, 200, 201} {
		for n := 1; n <= 7; n++ {
			sum := 0
			for k := 1; k <= n; k++ {
				sum += Cases(total, Spec{k, n})
			}
			if sum != total {
				t.Fatalf("Cases(%d) over %d slices adds up to %d", total, n, sum)
			}
		}
	}
}
