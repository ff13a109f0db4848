package kit

import (
	"testing"

	"pgregory.net/rapid"
)

// A property counts its cases and their time, and shrinks a failure to the
// smallest input that still fails the same requirement.
func TestPropertyShrinksAndCounts(t *testing.T) {
	restore, _, err := ConfigureRapid(50, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	res := Property(50, func(t *rapid.T) (Verdicts, any, string, string) {
		n := rapid.IntRange(0, 1000).Draw(t, "n")
		msg := ""
		if n >= 10 {
			msg = "too big"
		}
		return Verdicts{"X-01": msg}, n, "", ""
	})
	if res.Calls == 0 || res.Time <= 0 {
		t.Errorf("calls %d, time %v", res.Calls, res.Time)
	}
	f, ok := res.Failed["X-01"]
	if !ok || f.Input != 10 {
		t.Errorf("failed %v: want X-01 shrunk to 10", res.Failed)
	}
}
