package fuzz

import (
	"context"
	"reflect"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// The search draws each case as rapid's own search would from the same
// seed (Generator.Example with the seed rapid would give that case), so
// that rapid, handed the seed of a failing case, runs and shrinks exactly
// that case.
func TestSearchDrawsRapidsCases(t *testing.T) {
	caps := Capabilities{CostBound: true, WallClockBound: true, RealTime: true}
	g := rapid.Custom(func(t *rapid.T) Case { return Generate(t, caps) })
	for _, s := range caseSeeds(12345, 40) {
		restore, err := configureRapid(Options{ShrinkTime: 1}, s)
		if err != nil {
			t.Fatal(err)
		}
		var got Case
		rapid.Check(&recorder{name: "draw"}, func(rt *rapid.T) { got = Generate(rt, caps) })
		restore()
		if ex := g.Example(int(s)); !reflect.DeepEqual(got, ex) {
			t.Fatalf("seed %d: rapid draws\n%+v\nthe search draws\n%+v", s, got, ex)
		}
	}
}

// caseSeeds follows rapid: the seed of case i is the seed of case i-1 plus i.
func TestCaseSeeds(t *testing.T) {
	if got, want := caseSeeds(10, 5), []uint64{10, 11, 13, 16, 20}; !reflect.DeepEqual(got, want) {
		t.Fatalf("caseSeeds(10, 5) = %v, want %v", got, want)
	}
}

// The search on several workers reports the first failing case in the
// order of seeds, whichever worker found which first.
func TestExploreFindsTheFirstFailure(t *testing.T) {
	for _, workers := range []int{1, 2, 4, 8} {
		first, ran := explore(context.Background(), 200, workers, func(i int) bool {
			if i == 57 {
				time.Sleep(5 * time.Millisecond) // a later failure may be found sooner
			}
			return i == 57 || i == 60 || i == 130
		})
		if first != 57 || ran < 58 {
			t.Errorf("%d workers: first failure %d after %d cases, want 57 after at least 58", workers, first, ran)
		}
		if first, ran := explore(context.Background(), 50, workers, func(int) bool { return false }); first != -1 || ran != 50 {
			t.Errorf("%d workers, no failure: %d, %d cases", workers, first, ran)
		}
	}
}
