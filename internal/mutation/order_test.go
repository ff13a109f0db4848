package mutation

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestSplitHung(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mutation.json")
	report := `{"mutants":[{"key":"b","status":"timeout"},{"key":"c","status":"killed"},{"key":"d","status":"timeout"}]}`
	if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	hung := timedOutBefore(path)
	ms := []Mutant{{Key: "a"}, {Key: "b"}, {Key: "c"}, {Key: "d"}}
	hangs, rest := splitHung([]int{3, 2, 1, 0}, ms, hung)
	if !slices.Equal(hangs, []int{3, 1}) || !slices.Equal(rest, []int{2, 0}) {
		t.Errorf("split %v and %v, want [3 1] and [2 0]", hangs, rest)
	}
	if hungJobs(37, 16) != 32 || hungJobs(3, 16) != 3 {
		t.Errorf("hungJobs(37, 16) = %d, hungJobs(3, 16) = %d; want 32 and 3", hungJobs(37, 16), hungJobs(3, 16))
	}
	if timedOutBefore(filepath.Join(t.TempDir(), "none.json")) != nil {
		t.Error("a missing report names timed-out mutants")
	}
}

// Mutants expected to wait a minute out are judged by workers of their
// own, in the order they came, as many as the campaign's jobs.
func TestSplitWaiting(t *testing.T) {
	scopes := []judgeScope{{expect: time.Minute}, {expect: time.Second}, {expect: waitingAt}, {expect: 29 * time.Second}}
	waiting, rest := splitWaiting([]int{2, 0, 3, 1}, scopes)
	if !slices.Equal(waiting, []int{2, 0}) || !slices.Equal(rest, []int{3, 1}) {
		t.Errorf("split %v and %v, want [2 0] and [3 1]", waiting, rest)
	}
	if waitJobs(162, 16) != 16 || waitJobs(3, 16) != 3 {
		t.Errorf("waitJobs(162, 16) = %d, waitJobs(3, 16) = %d; want 16 and 3", waitJobs(162, 16), waitJobs(3, 16))
	}
}

func TestLongestFirst(t *testing.T) {
	scopes := []judgeScope{
		{expect: time.Minute}, {expect: 2 * time.Minute}, {expect: time.Second},
		{expect: 40 * time.Second}, {expect: 5 * time.Second}, {expect: 0},
	}
	alone := map[int]bool{3: true, 4: true}
	order := []int{0, 1, 2, 3, 4, 5}
	longestFirst(order, scopes, func(i int) bool { return alone[i] })
	// In each queue the mutants built alone come first (3 before 1 and 0,
	// longer as they are), then the longest.
	waiting, rest := splitWaiting(order, scopes)
	if want := []int{3, 1, 0}; !slices.Equal(waiting, want) {
		t.Errorf("waiting queue %v, want %v", waiting, want)
	}
	if want := []int{4, 2, 5}; !slices.Equal(rest, want) {
		t.Errorf("other queue %v, want %v", rest, want)
	}
}
