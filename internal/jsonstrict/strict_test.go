package jsonstrict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestCanonicalNumbers(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`1200`, `1200`},
		{`1200.0`, `1200`},
		{`1.2e3`, `1200`},
		{`1.2E+3`, `1200`},
		{`12000e-1`, `1200`},
		{`-7.00`, `-7`},
		{`-0.0`, `0`},
		{`0e999999999999`, `0`},
		{`0.5`, `0.5`},
		{`12.5`, `12.5`},
		{`1e-400`, `1e-400`},
		{`1e400`, `1e400`},
		{`9223372036854775807.0`, `9223372036854775807`},
		{`9223372036854775808.0`, `9223372036854775808.0`},
		{`-9223372036854775808.0`, `-9223372036854775808`},
		{`1e19`, `1e19`},
		{`1e18`, `1000000000000000000`},
		{`{"a":1.0,"b":[2.0,"3.0",{"c":4e0}],"d":"x\"5.0"}`, `{"a":1,"b":[2,"3.0",{"c":4}],"d":"x\"5.0"}`},
		{` { "n" : 1.50 , "m" : 3.0 } `, ` { "n" : 1.50 , "m" : 3 } `},
	} {
		got, err := Canonical([]byte(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("Canonical(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

func TestCanonicalDoesNotCopyWhatItKeeps(t *testing.T) {
	in := []byte(`{"a":[1,2.5,"x"]}`)
	got, err := Canonical(in)
	if err != nil || &got[0] != &in[0] {
		t.Errorf("Canonical copied an unchanged text (err %v)", err)
	}
}

func TestEnvelopeKeepsTopNumbersAndListsKeys(t *testing.T) {
	out, keys, err := Envelope([]byte(`{"jsonrpc":"2.0","id":7.0,"result":{"n":7.0}}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"jsonrpc":"2.0","id":7.0,"result":{"n":7}}` {
		t.Errorf("Envelope rewrote %s", out)
	}
	if fmt.Sprint(keys) != "[jsonrpc id result]" {
		t.Errorf("keys %v", keys)
	}
	if _, keys, _ := Envelope([]byte(`[1]`)); keys != nil {
		t.Errorf("an array has top-level keys %v", keys)
	}
}

func TestRepeatedKeys(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"a":1,"a":2}`, `at /: key "a" appears twice`},
		{`{"result":1,"RESULT":2}`, `at /: keys "result" and "RESULT" differ only in case`},
		{`{"p":{"x":[{"k":1,"K":2}]}}`, `at /p/x/0: keys "k" and "K" differ only in case`},
		{`{"a\/b":{"\u0061":1,"a":2}}`, `at /a~1b: key "a" appears twice`},
		{`{"ſ":1,"S":2}`, `at /: keys "ſ" and "S" differ only in case`},                   // U+017F folds to s
		{"{\"\u212a\":1,\"k\":2}", "at /: keys \"\u212a\" and \"k\" differ only in case"}, // Kelvin sign
	} {
		_, err := Canonical([]byte(tt.in))
		var ke *KeyError
		if !errors.As(err, &ke) || err.Error() != tt.want {
			t.Errorf("Canonical(%s): %v, want %s", tt.in, err, tt.want)
		}
	}
	// Past smallObject keys the set switches to a map; it must find the
	// same repeats.
	var sb strings.Builder
	sb.WriteString("{")
	for i := range 40 {
		fmt.Fprintf(&sb, `"key%d":%d,`, i, i)
	}
	sb.WriteString(`"KEY3":0}`)
	if _, err := Canonical([]byte(sb.String())); err == nil || !strings.Contains(err.Error(), `"key3" and "KEY3"`) {
		t.Errorf("large object: %v", err)
	}
	if _, err := Canonical([]byte(`{"a":{"x":1},"b":{"x":1}}`)); err != nil {
		t.Errorf("equal keys in different objects: %v", err)
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a":1,}`, `not json`, `{"a":1} {"b":2}`} {
		if _, err := Canonical([]byte(in)); err == nil {
			t.Errorf("Canonical(%q) accepted it", in)
		}
	}
}

// TestCanonicalKeepsValues: for any JSON value with numbers written in any
// notation, the canonical text is valid JSON holding the same values.
func TestCanonicalKeepsValues(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := genValue(t, 0)
		out, err := Canonical([]byte(in))
		if err != nil {
			t.Fatalf("Canonical(%s): %v", in, err)
		}
		if !sameValue(t, in, string(out)) {
			t.Fatalf("Canonical(%s) = %s: values differ", in, out)
		}
		again, _ := Canonical(out)
		if !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %s → %s", out, again)
		}
	})
}

func genNumber(t *rapid.T) string {
	n := rapid.Int64().Draw(t, "n")
	switch rapid.IntRange(0, 4).Draw(t, "form") {
	case 0:
		return fmt.Sprint(n)
	case 1:
		return fmt.Sprintf("%d.%s", n, strings.Repeat("0", rapid.IntRange(1, 3).Draw(t, "zeros")))
	case 2:
		return fmt.Sprintf("%de0", n)
	case 3:
		return fmt.Sprintf("%d.%d", n, rapid.IntRange(1, 99).Draw(t, "frac"))
	default:
		return fmt.Sprintf("%de%d", n, rapid.IntRange(-30, 30).Draw(t, "exp"))
	}
}

func genValue(t *rapid.T, depth int) string {
	kind := rapid.IntRange(0, 4).Draw(t, "kind")
	if depth > 3 {
		kind = rapid.IntRange(0, 1).Draw(t, "leaf")
	}
	switch kind {
	case 0:
		return genNumber(t)
	case 1:
		return fmt.Sprintf("%q", rapid.StringMatching(`[a-z0-9.e"\\ ]{0,6}`).Draw(t, "s"))
	case 2:
		return rapid.SampledFrom([]string{"true", "false", "null"}).Draw(t, "lit")
	case 3:
		n := rapid.IntRange(0, 4).Draw(t, "len")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = genValue(t, depth+1)
		}
		return "[" + strings.Join(parts, ",") + "]"
	default:
		n := rapid.IntRange(0, 4).Draw(t, "len")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`"k%d":%s`, i, genValue(t, depth+1))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
}

// sameValue compares two JSON texts, numbers by exact value.
func sameValue(t *rapid.T, a, b string) bool {
	var va, vb any
	for _, x := range []struct {
		s string
		v *any
	}{{a, &va}, {b, &vb}} {
		d := json.NewDecoder(strings.NewReader(x.s))
		d.UseNumber()
		if err := d.Decode(x.v); err != nil {
			t.Fatalf("%s: %v", x.s, err)
		}
	}
	return equal(va, vb)
}

func equal(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		rx, okx := new(big.Rat).SetString(string(x))
		ry, oky := new(big.Rat).SetString(string(y))
		return okx && oky && rx.Cmp(ry) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k := range x {
			if !equal(x[k], y[k]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// FuzzCanonical: any bytes in, no panic; what is accepted stays valid JSON
// with the same values, and what json.Valid refuses is refused.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"a":1.0}`, `[1e400,-0.0,"x"]`, `{"a":1,"A":2}`, `{"\u00e9":1}`, `{`, "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := Canonical(b)
		if !json.Valid(b) {
			if err == nil {
				t.Fatalf("accepted invalid JSON %q", b)
			}
			return
		}
		var ke *KeyError
		if errors.As(err, &ke) {
			return
		}
		if err != nil {
			t.Fatalf("valid JSON %q: %v", b, err)
		}
		if !json.Valid(out) {
			t.Fatalf("%q → invalid %q", b, out)
		}
	})
}
