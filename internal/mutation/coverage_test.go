package mutation

import "testing"

func TestReachFromProfile(t *testing.T) {
	prof := `mode: set
example.com/m/refkernel/a/a.go:10.20,12.3 2 1
example.com/m/refkernel/a/a.go:12.3,14.4 1 0
example.com/m/refkernel/a/a.go:20.1,30.2 3 0
example.com/m/refkernel/a/a.go:22.5,24.6 1 1
`
	r, err := parseProfile([]byte(prof), "example.com/m")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		line, col int
		want      string
	}{
		{10, 20, ReachedYes}, {11, 1, ReachedYes},
		{12, 3, ReachedNo}, // the end of a block is not part of it
		{13, 9, ReachedNo},
		{23, 1, ReachedYes}, // inside a hit block nested in a missed one
		{21, 1, ReachedNo},
		{40, 1, ""}, // no block: a declaration
	}
	for _, c := range cases {
		if got := r.at("refkernel/a/a.go", c.line, c.col); got != c.want {
			t.Errorf("%d:%d = %q, want %q", c.line, c.col, got, c.want)
		}
	}
	if got := (*reach)(nil).at("refkernel/a/a.go", 11, 1); got != "" {
		t.Errorf("unmeasured: %q", got)
	}
	if _, err := parseProfile([]byte("mode: set\ngarbage\n"), "example.com/m"); err == nil {
		t.Error("a malformed profile was accepted")
	}
}
