package ids

import (
	"strings"
	"testing"
)

func TestSequenceCountsPerKind(t *testing.T) {
	g := Sequence()
	got := []string{g("turn"), g("plan"), g("turn")}
	want := []string{"turn-1", "plan-1", "turn-2"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("id %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestRandomIsPrefixedAndDistinct(t *testing.T) {
	g := Random()
	a, b := g("turn"), g("turn")
	if !strings.HasPrefix(a, "turn_") || a == b {
		t.Fatalf("got %q and %q", a, b)
	}
}
