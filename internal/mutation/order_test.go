package mutation

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestHangsFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mutation.json")
	report := `{"mutants":[{"key":"b","status":"timeout"},{"key":"c","status":"killed"},{"key":"d","status":"timeout"}]}`
	if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	hung := timedOutBefore(path)
	ms := []Mutant{{Key: "a"}, {Key: "b"}, {Key: "c"}, {Key: "d"}}
	order := []int{0, 1, 2, 3}
	hangsFirst(order, ms, hung)
	if want := []int{1, 3, 0, 2}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
	if timedOutBefore(filepath.Join(t.TempDir(), "none.json")) != nil {
		t.Error("a missing report names timed-out mutants")
	}
}
