package schemagen

import (
	"fmt"
	"slices"

	schemav1 "github.com/agentconform/conform/api/gen/pluggableharness/schema/v1"
)

// Subset returns every way s leaves the common JSON-Schema subset, each
// with its location (PL-08): a missing schema, an untyped node, required
// names that are not declared properties, an array without items, enum
// values on a non-string node, properties on a non-object node. The top
// must be an object, since arguments and payloads are JSON objects.
func Subset(s *schemav1.Schema) []string {
	if s == nil {
		return []string{"no schema declared"}
	}
	var out []string
	if s.GetType() != schemav1.SchemaType_SCHEMA_TYPE_OBJECT {
		out = append(out, fmt.Sprintf("the top is %s, not an object (arguments and payloads are JSON objects)", typeWord(s.GetType())))
	}
	walk(s, "", &out)
	slices.Sort(out)
	return slices.Compact(out)
}

func walk(s *schemav1.Schema, at string, out *[]string) {
	where := at
	if where == "" {
		where = "/"
	}
	add := func(format string, args ...any) {
		*out = append(*out, where+": "+fmt.Sprintf(format, args...))
	}
	t := s.GetType()
	if jsonType(t) == "" {
		add("no type (%s)", t)
	}
	if len(s.GetProperties()) > 0 && t != schemav1.SchemaType_SCHEMA_TYPE_OBJECT {
		add("properties on %s", typeWord(t))
	}
	if len(s.GetRequired()) > 0 && t != schemav1.SchemaType_SCHEMA_TYPE_OBJECT {
		add("required on %s", typeWord(t))
	}
	for _, r := range s.GetRequired() {
		if _, ok := s.GetProperties()[r]; !ok {
			add("required names %q, which is not a declared property", r)
		}
	}
	if t == schemav1.SchemaType_SCHEMA_TYPE_ARRAY && s.GetItems() == nil {
		add("an array without items")
	}
	if s.GetItems() != nil && t != schemav1.SchemaType_SCHEMA_TYPE_ARRAY {
		add("items on %s", typeWord(t))
	}
	if len(s.GetEnumValues()) > 0 && t != schemav1.SchemaType_SCHEMA_TYPE_STRING {
		add("enum values on %s (the subset's enum values are strings)", typeWord(t))
	}
	for _, name := range sortedKeys(s.GetProperties()) {
		walk(s.GetProperties()[name], at+"/properties/"+name, out)
	}
	if s.GetItems() != nil {
		walk(s.GetItems(), at+"/items", out)
	}
}

func typeWord(t schemav1.SchemaType) string {
	if j := jsonType(t); j != "" {
		return "type " + j
	}
	return "an untyped node"
}
