package editdist

import "testing"

func TestBytes(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"--slow", "--slwo", 2}, {"same", "same", 0}} {
		if got := Bytes(c.a, c.b); got != c.want {
			t.Errorf("Bytes(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
