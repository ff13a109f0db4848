package plain

import (
	"strings"
	"testing"
)

func TestJSON(t *testing.T) {
	v := map[string]any{"content": []any{map[string]any{"type": "text", "text": "a<b"}}, "n": 2}
	if got, want := JSON(v), `{"content":[{"text":"a<b","type":"text"}],"n":2}`; got != want {
		t.Errorf("JSON = %s, want %s", got, want)
	}
	if got := JSON(make(chan int)); got == "" || strings.Contains(got, "json") {
		t.Errorf("JSON of a channel = %q, want its %%v", got)
	}
}

func TestUSD(t *testing.T) {
	for in, want := range map[float64]string{
		0.009824999999999999: "0.009825",
		0.0087:               "0.0087",
		2:                    "2",
		0:                    "0",
		0.1 + 0.2:            "0.3",
		1234.5:               "1234.5",
		0.0000000012:         "0.0000000012",
		-0.00000000001:       "0",
	} {
		if got := USD(in); got != want {
			t.Errorf("USD(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestCountAndLists(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Count(1, "ordinary turn"), "1 ordinary turn"},
		{Count(0, "ordinary turn"), "0 ordinary turns"},
		{Count(61, "ordinary turn"), "61 ordinary turns"},
		{CountOf(2, "sub-agent session", "sub-agent sessions"), "2 sub-agent sessions"},
		{Ints(nil), "none"},
		{Ints([]int{2}), "2"},
		{Ints([]int{2, 4}), "2 and 4"},
		{Ints([]int{2, 4, 6}), "2, 4 and 6"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestDiff(t *testing.T) {
	if d := Diff([]string{"a", "b"}, []string{"a", "b"}); d != "" {
		t.Errorf("equal values: diff %q", d)
	}
	want := map[string]any{"messages": []any{map[string]any{"role": "user", "text": "A"}}}
	got := map[string]any{"messages": []any{map[string]any{"role": "user", "text": "A"}, map[string]any{"role": "user", "text": "X"}}}
	d := Diff(want, got)
	for _, s := range []string{`+       "text": "X"`, `        "text": "A"`} {
		if !strings.Contains(d, s) {
			t.Errorf("diff lacks %q:\n%s", s, d)
		}
	}
	for _, s := range []string{"map[", "any{", "string("} {
		if strings.Contains(d, s) {
			t.Errorf("diff speaks Go (%q):\n%s", s, d)
		}
	}
	order := Diff([]string{"context/assemble", "model/stream", "invoke write"}, []string{"model/stream", "invoke write", "hook post"})
	if wantOrder := "  [\n-   \"context/assemble\",\n    \"model/stream\",\n-   \"invoke write\"\n+   \"invoke write\",\n+   \"hook post\"\n  ]"; order != wantOrder {
		t.Errorf("order diff:\n%s\nwant:\n%s", order, wantOrder)
	}
	// Long unchanged runs are cut.
	var a, b []int
	for i := range 40 {
		a = append(a, i)
		b = append(b, i)
	}
	b[20] = -1
	if d := Diff(a, b); strings.Count(d, "\n") > 12 || !strings.Contains(d, "…") {
		t.Errorf("long diff not cut to its context:\n%s", d)
	}
}
