package schemagen

import (
	"sort"

	"pgregory.net/rapid"

	schemav1 "github.com/agentconform/conform/api/gen/pluggableharness/schema/v1"
)

// Limits of generated values: small, so a case is quick to run and a
// shrunk failure is short to read.
const (
	maxArray  = 4
	maxString = 24
	maxDepth  = 8
)

// Args generates argument objects that satisfy s (an object schema).
func Args(s *schemav1.Schema) *rapid.Generator[map[string]any] {
	return rapid.Custom(func(t *rapid.T) map[string]any {
		// rapid needs every generator to draw something, and an object
		// with no properties draws nothing of its own.
		_ = rapid.Bool().Draw(t, "seed")
		return object(t, s, 0)
	})
}

// Value generates values that satisfy s.
func Value(s *schemav1.Schema) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		_ = rapid.Bool().Draw(t, "seed")
		return value(t, s, 0)
	})
}

func value(t *rapid.T, s *schemav1.Schema, depth int) any {
	switch s.GetType() {
	case schemav1.SchemaType_SCHEMA_TYPE_OBJECT:
		return object(t, s, depth)
	case schemav1.SchemaType_SCHEMA_TYPE_STRING:
		return str(t, s)
	case schemav1.SchemaType_SCHEMA_TYPE_NUMBER:
		return number(t)
	case schemav1.SchemaType_SCHEMA_TYPE_BOOLEAN:
		return rapid.Bool().Draw(t, "bool")
	case schemav1.SchemaType_SCHEMA_TYPE_ARRAY:
		n := rapid.IntRange(0, arrayMax(depth)).Draw(t, "len")
		out := make([]any, n)
		for i := range out {
			out[i] = value(t, s.GetItems(), depth+1)
		}
		return out
	}
	// An untyped node accepts anything; keep to scalars.
	return rapid.OneOf(
		rapid.Just[any](nil),
		rapid.Map(rapid.Bool(), func(b bool) any { return b }),
		rapid.Map(rapid.StringN(0, maxString, -1), func(s string) any { return s }),
	).Draw(t, "any")
}

func arrayMax(depth int) int {
	if depth >= maxDepth {
		return 0
	}
	return maxArray
}

func object(t *rapid.T, s *schemav1.Schema, depth int) map[string]any {
	out := map[string]any{}
	required := map[string]bool{}
	for _, r := range s.GetRequired() {
		required[r] = true
	}
	for _, name := range sortedKeys(s.GetProperties()) {
		if !required[name] && (depth >= maxDepth || !rapid.Bool().Draw(t, "has "+name)) {
			continue
		}
		out[name] = value(t, s.GetProperties()[name], depth+1)
	}
	// A required name without a declared property (a PL-08 defect) still
	// needs a value for the object to validate.
	for _, r := range s.GetRequired() {
		if _, ok := out[r]; !ok {
			out[r] = rapid.StringN(0, maxString, -1).Draw(t, r)
		}
	}
	return out
}

func str(t *rapid.T, s *schemav1.Schema) string {
	if e := s.GetEnumValues(); len(e) > 0 {
		return rapid.SampledFrom(e).Draw(t, "enum")
	}
	return rapid.StringN(0, maxString, -1).Draw(t, "string")
}

// number draws small integers mostly, finite floats sometimes: JSON has
// no NaN or infinity, and a Struct cannot carry them.
func number(t *rapid.T) float64 {
	if rapid.IntRange(0, 3).Draw(t, "float?") == 0 {
		return rapid.Float64Range(-1e6, 1e6).Draw(t, "float")
	}
	return float64(rapid.IntRange(-100, 100).Draw(t, "int"))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
