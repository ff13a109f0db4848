package wire

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"pgregory.net/rapid"
)

// Every part's schema compiles to the fast path: a keyword added to the
// schemas that fastschema.go does not know would quietly send that part to
// the general validator alone, and validated round trips would slow down.
func TestFastSchemaCoversEveryPart(t *testing.T) {
	compileOnce.Do(loadSchemas)
	for key := range compiled {
		if fast[key] == nil {
			t.Errorf("%s: the schema does not compile to the fast path", key)
		}
	}
}

// The fast path never accepts what the general validator refuses: on every
// example of every part, and on each example mutated (members removed,
// replaced by values of other kinds, added), the two agree whenever the fast
// path says valid. Where it says invalid, Validate asks the general
// validator, so disagreeing there costs time, not verdicts; it is reported
// too, because it should not happen either.
func TestFastSchemaAgrees(t *testing.T) {
	compileOnce.Do(loadSchemas)
	type sample struct {
		key string
		doc any
	}
	var seeds []sample
	for _, ex := range examples() {
		b, err := json.Marshal(ex.value)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, sample{schemaKey(ex.method, ex.part), doc})
	}
	check := func(t interface{ Fatalf(string, ...any) }, key string, doc any) {
		f := fast[key]
		sch, _ := schemaOf(key)
		lib := sch.Validate(doc) == nil
		if got := f.valid(doc); got != lib {
			b, _ := json.Marshal(doc)
			t.Fatalf("%s: the fast path says valid=%v, the general validator %v: %s", key, got, lib, b)
		}
	}
	for _, s := range seeds {
		check(t, s.key, s.doc)
	}
	// Each seed of rapid is a hundred documents: ten of them make it
	// likely that each keyword meets a value it refuses.
	for range 10 {
		rapid.Check(t, func(rt *rapid.T) {
			s := rapid.SampledFrom(seeds).Draw(rt, "seed")
			doc := clone(s.doc)
			for n := rapid.IntRange(1, 3).Draw(rt, "places"); n > 0; n-- {
				doc = mutate(rt, doc, 0)
			}
			check(rt, s.key, doc)
		})
	}
}

// mutate changes one place of a document: a member or item removed,
// replaced by another kind of value, or added.
func mutate(t *rapid.T, v any, depth int) any {
	values := []any{nil, true, json.Number("0"), json.Number("-1"), json.Number("1.5"), json.Number("1.0"), json.Number("1e400"),
		json.Number("-1e-400"), json.Number("9223372036854775808"), "", "x", "primary", "a.b", "tool_call", []any{}, []any{"x", "x"}, map[string]any{}}
	here := func() any { return rapid.SampledFrom(values).Draw(t, "value") }
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 || rapid.IntRange(0, 4).Draw(t, "stop") == 0 {
			switch rapid.IntRange(0, 2).Draw(t, "how") {
			case 0:
				x[rapid.SampledFrom([]string{"extra", "type", "session_id", ""}).Draw(t, "key")] = here()
			case 1:
				if len(x) > 0 {
					delete(x, rapid.SampledFrom(keys(x)).Draw(t, "drop"))
				}
			default:
				return here()
			}
			return x
		}
		k := rapid.SampledFrom(keys(x)).Draw(t, "into")
		x[k] = mutate(t, x[k], depth+1)
		return x
	case []any:
		if len(x) == 0 || rapid.IntRange(0, 3).Draw(t, "stop") == 0 {
			if rapid.Bool().Draw(t, "append") {
				return append(x, here())
			}
			return here()
		}
		i := rapid.IntRange(0, len(x)-1).Draw(t, "index")
		x[i] = mutate(t, x[i], depth+1)
		return x
	}
	return here()
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = clone(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = clone(e)
		}
		return l
	}
	return v
}

// No part's Go type has a number an int64 literal may not fit, so Admit
// skips the decoding of every part whose numbers are such literals. A
// field added with such a type makes Admit decode that part again (still
// correct, only slower); this test says so.
func TestAdmitSkipsDecodingEveryPart(t *testing.T) {
	for key := range partTypes {
		method, part, _ := strings.Cut(key, " ")
		if narrowNumbers(method, part) {
			t.Errorf("%s: the Go type has a number narrower than int64, or decodes itself", key)
		}
	}
}

// Admit refuses what Validate or Decode refuses, with their errors.
func TestAdmitIsValidateThenDecode(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{`{"session_id":"s","turn_id":"t","model":"m","usage":{"input_tokens":1,"output_tokens":1},"cost_usd":0.5,"session_total_usd":0,"tier_index":0}`, ""},
		{`{"session_id":"s","turn_id":"t","model":"m","usage":{"input_tokens":1e400,"output_tokens":1},"cost_usd":0,"session_total_usd":0,"tier_index":0}`, "does not decode: at /usage/input_tokens: number 1e400 is not an int64"},
		{`{"session_id":"s","turn_id":"t","model":"m","usage":{"input_tokens":9223372036854775808,"output_tokens":1},"cost_usd":0,"session_total_usd":0,"tier_index":0}`, "does not decode: at /usage/input_tokens: number 9223372036854775808 is not an int64"},
		{`{"session_id":"s","turn_id":"t","model":"m","usage":{"input_tokens":"1","output_tokens":1},"cost_usd":0,"session_total_usd":0,"tier_index":0}`, "at /usage/input_tokens: got string, want integer"},
	} {
		err := Admit(NotifyCostUsage, PartParams, json.RawMessage(c.raw))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("Admit(%s) = %q, want %q", c.raw, got, c.want)
		}
		verr := Validate(NotifyCostUsage, PartParams, json.RawMessage(c.raw))
		_, derr := Decode(NotifyCostUsage, PartParams, json.RawMessage(c.raw))
		if (err == nil) != (verr == nil && derr == nil) {
			t.Errorf("Admit(%s) = %v; Validate %v, Decode %v", c.raw, err, verr, derr)
		}
	}
}
