package mutation

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A scenario the unmutated kit kernel fails judges no mutant: a block only
// it executed is not reached, and it is not among the scenarios whose times
// size the runs.
func TestReachDropLeavesOnlyPassingScenarios(t *testing.T) {
	r := &reach{
		blocks: map[string][]coverBlock{"kernelkit/turn.go": {
			{l0: 1, c0: 1, l1: 2, c1: 1, hit: true, units: []int{0, 1}},
			{l0: 3, c0: 1, l1: 4, c1: 1, hit: true, units: []int{1}},
			{l0: 5, c0: 1, l1: 6, c1: 1},
		}},
		units: make([]scenarioUnit, 3),
		took:  []time.Duration{time.Second, time.Second, time.Second},
		cpu:   []time.Duration{time.Second, time.Second, time.Second},
	}
	r.drop([]int{1})
	if got := r.at("kernelkit/turn.go", 1, 5); got != ReachedYes {
		t.Errorf("a block a passing scenario executed: reached %q, want yes", got)
	}
	if got := r.at("kernelkit/turn.go", 3, 5); got != ReachedNo {
		t.Errorf("a block only the failing scenario executed: reached %q, want no", got)
	}
	if got := r.reaching("kernelkit/turn.go", 1, 5, nil); !slices.Equal(got, []int{0}) {
		t.Errorf("reaching = %v, want [0]", got)
	}
	if diff := cmp.Diff([]int{0, 2}, r.all()); diff != "" {
		t.Errorf("scenarios with times (-want +got):\n%s", diff)
	}
}

// Against the embedded kernel the built program is conform itself; against
// a kernel unit it is the kernel conform launches, the mutant's switch and
// the coverage folder handed to it with --env.
func TestKernelUnitCommand(t *testing.T) {
	j := &judge{}
	prog, args := j.command("/w/conform", []string{"run", "-q"}, []string{"CONFORM_MUTANT=3"})
	if prog != "/w/conform" || !slices.Equal(args, []string{"run", "-q"}) {
		t.Errorf("embedded: %s %v", prog, args)
	}
	j.kernel = &KernelUnit{Name: "kitloop", Conform: "/c/conform"}
	prog, args = j.command("/w/kitloop", []string{"run", "-q"}, []string{"CONFORM_MUTANT=3", "GOCOVERDIR=/d"})
	want := []string{"run", "-q", "--kernel", "/w/kitloop", "--env", "CONFORM_MUTANT=3", "--env", "GOCOVERDIR=/d"}
	if prog != "/c/conform" || !slices.Equal(args, want) {
		t.Errorf("kernel unit: %s %v, want /c/conform %v", prog, args, want)
	}
}
