package schemagen

import (
	"fmt"
	"strings"

	"pgregory.net/rapid"

	schemav1 "github.com/agentconform/conform/api/gen/pluggableharness/schema/v1"
)

// Broken is an argument object that breaks its schema in one place.
type Broken struct {
	Args map[string]any
	// How says what was broken, e.g. `required property "path" left out`.
	How string
}

// Invalid generates argument objects for s (an object schema) that break
// it in exactly one place: a required property left out, a value of the
// wrong JSON type (the whole value, or one element of an array), or a
// string outside its enum. ok is false when s leaves
// nothing to break (an object with no properties and nothing required).
func Invalid(s *schemav1.Schema) (gen *rapid.Generator[Broken], ok bool) {
	if len(sites(s)) == 0 {
		return nil, false
	}
	return rapid.Custom(func(t *rapid.T) Broken {
		args := object(t, s, 0)
		all := sites(s)
		site := rapid.SampledFrom(all).Draw(t, "site")
		how := site.apply(t, args)
		return Broken{Args: args, How: how}
	}), true
}

// site is one place a value can be broken: a top-level property of the
// object (nested objects are reached through their parent's property).
type site struct {
	kind     string // "missing", "type", "item", "enum"
	property string
	schema   *schemav1.Schema
}

func sites(s *schemav1.Schema) []site {
	var out []site
	for _, r := range s.GetRequired() {
		out = append(out, site{kind: "missing", property: r})
	}
	for _, name := range sortedKeys(s.GetProperties()) {
		p := s.GetProperties()[name]
		if jsonType(p.GetType()) == "" {
			continue // an untyped property accepts every value
		}
		out = append(out, site{kind: "type", property: name, schema: p})
		if p.GetType() == schemav1.SchemaType_SCHEMA_TYPE_ARRAY && jsonType(p.GetItems().GetType()) != "" {
			out = append(out, site{kind: "item", property: name, schema: p})
		}
		if p.GetType() == schemav1.SchemaType_SCHEMA_TYPE_STRING && len(p.GetEnumValues()) > 0 {
			out = append(out, site{kind: "enum", property: name, schema: p})
		}
	}
	return out
}

func (st site) apply(t *rapid.T, args map[string]any) string {
	switch st.kind {
	case "missing":
		delete(args, st.property)
		return fmt.Sprintf("required property %q left out", st.property)
	case "item":
		// Valid elements around one of the wrong type, anywhere in the
		// array: a plugin that checks the first element only accepts it.
		items := st.schema.GetItems()
		n := rapid.IntRange(1, maxArray).Draw(t, "elements")
		at := rapid.IntRange(0, n-1).Draw(t, "broken element")
		arr := make([]any, n)
		for i := range arr {
			arr[i] = value(t, items, 1)
		}
		want := jsonType(items.GetType())
		arr[at] = wrongType(t, want)
		args[st.property] = arr
		return fmt.Sprintf("element %d of property %q is %s, not %s", at, st.property, typeName(arr[at]), strings.TrimSpace(want))
	case "enum":
		v := rapid.StringN(0, maxString, -1).Filter(func(s string) bool {
			for _, e := range st.schema.GetEnumValues() {
				if s == e {
					return false
				}
			}
			return true
		}).Draw(t, "not in enum")
		args[st.property] = v
		return fmt.Sprintf("property %q is %q, not one of its enum values", st.property, v)
	}
	want := jsonType(st.schema.GetType())
	v := wrongType(t, want)
	args[st.property] = v
	return fmt.Sprintf("property %q is %s, not %s", st.property, typeName(v), strings.TrimSpace(want))
}

// wrongType draws a value of any JSON type but want.
func wrongType(t *rapid.T, want string) any {
	var gens []*rapid.Generator[any]
	if want != "string" {
		gens = append(gens, rapid.Map(rapid.StringN(0, 8, -1), func(s string) any { return s }))
	}
	if want != "number" {
		gens = append(gens, rapid.Map(rapid.IntRange(-9, 9), func(i int) any { return float64(i) }))
	}
	if want != "boolean" {
		gens = append(gens, rapid.Map(rapid.Bool(), func(b bool) any { return b }))
	}
	if want != "object" {
		gens = append(gens, rapid.Just[any](map[string]any{}))
	}
	if want != "array" {
		gens = append(gens, rapid.Just[any]([]any{}))
	}
	gens = append(gens, rapid.Just[any](nil))
	return rapid.OneOf(gens...).Draw(t, "wrong type")
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}
