package schemagen

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	schemav1 "github.com/agentconform/conform/api/gen/pluggableharness/schema/v1"
)

func typed(t schemav1.SchemaType) *schemav1.Schema { return &schemav1.Schema{Type: t} }

// schemaGen draws object schemas of the subset, nested a little.
func schemaGen(depth int) *rapid.Generator[*schemav1.Schema] {
	return rapid.Custom(func(t *rapid.T) *schemav1.Schema {
		kinds := []schemav1.SchemaType{schemav1.SchemaType_SCHEMA_TYPE_STRING, schemav1.SchemaType_SCHEMA_TYPE_NUMBER, schemav1.SchemaType_SCHEMA_TYPE_BOOLEAN}
		if depth > 0 {
			kinds = append(kinds, schemav1.SchemaType_SCHEMA_TYPE_ARRAY, schemav1.SchemaType_SCHEMA_TYPE_OBJECT)
		}
		s := &schemav1.Schema{Type: schemav1.SchemaType_SCHEMA_TYPE_OBJECT, Properties: map[string]*schemav1.Schema{}}
		for _, name := range rapid.SliceOfNDistinct(rapid.StringMatching(`[a-z]{1,5}`), 0, 4, rapid.ID[string]).Draw(t, "names") {
			var p *schemav1.Schema
			switch k := rapid.SampledFrom(kinds).Draw(t, "kind"); k {
			case schemav1.SchemaType_SCHEMA_TYPE_OBJECT:
				p = schemaGen(depth-1).Draw(t, "object")
			case schemav1.SchemaType_SCHEMA_TYPE_ARRAY:
				p = &schemav1.Schema{Type: k, Items: typed(schemav1.SchemaType_SCHEMA_TYPE_STRING)}
			case schemav1.SchemaType_SCHEMA_TYPE_STRING:
				p = typed(k)
				if rapid.Bool().Draw(t, "enum") {
					p.EnumValues = rapid.SliceOfNDistinct(rapid.StringMatching(`[a-z]{1,4}`), 1, 3, rapid.ID[string]).Draw(t, "values")
				}
			default:
				p = typed(k)
			}
			s.Properties[name] = p
			if rapid.Bool().Draw(t, "required") {
				s.Required = append(s.Required, name)
			}
		}
		return s
	})
}

// Every generated argument object validates against its schema, and
// every broken one does not, on schemas drawn at random.
func TestArgsValidateAndInvalidDoesNot(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := schemaGen(2).Draw(t, "schema")
		v, err := Compile("s", s)
		if err != nil {
			t.Fatal(err)
		}
		if len(Subset(s)) > 0 {
			t.Fatalf("generated schema out of subset: %v", Subset(s))
		}
		args := Args(s).Draw(t, "args")
		if err := v.Validate(args); err != nil {
			t.Fatalf("generated %v does not validate: %v", args, err)
		}
		gen, ok := Invalid(s)
		if !ok {
			return
		}
		b := gen.Draw(t, "broken")
		if err := v.Validate(b.Args); err == nil {
			t.Fatalf("broken arguments %v (%s) validate", b.Args, b.How)
		}
	})
}

func TestSubsetNamesEachDefect(t *testing.T) {
	s := &schemav1.Schema{Type: schemav1.SchemaType_SCHEMA_TYPE_OBJECT, Required: []string{"ghost"}, Properties: map[string]*schemav1.Schema{
		"list":  {Type: schemav1.SchemaType_SCHEMA_TYPE_ARRAY},
		"count": {Type: schemav1.SchemaType_SCHEMA_TYPE_NUMBER, EnumValues: []string{"1"}},
		"what":  {},
	}}
	got := strings.Join(Subset(s), "\n")
	for _, want := range []string{`required names "ghost"`, "/properties/list: an array without items", "/properties/count: enum values on type number", "/properties/what: no type"} {
		if !strings.Contains(got, want) {
			t.Errorf("Subset does not say %q:\n%s", want, got)
		}
	}
	if got := Subset(typed(schemav1.SchemaType_SCHEMA_TYPE_STRING)); len(got) != 1 || !strings.Contains(got[0], "not an object") {
		t.Errorf("a string at the top: %v", got)
	}
	if got := Subset(nil); len(got) != 1 {
		t.Errorf("no schema: %v", got)
	}
}

func TestValidateSaysWhere(t *testing.T) {
	s := &schemav1.Schema{Type: schemav1.SchemaType_SCHEMA_TYPE_OBJECT, Required: []string{"n"}, Properties: map[string]*schemav1.Schema{"n": typed(schemav1.SchemaType_SCHEMA_TYPE_NUMBER)}}
	v, err := Compile("s", s)
	if err != nil {
		t.Fatal(err)
	}
	err = v.Validate(map[string]any{"n": "x"})
	if err == nil || !strings.Contains(err.Error(), "at /n") {
		t.Errorf("err = %v", err)
	}
}

// An array is broken in any of its elements, not only the first: a plugin
// that validates the first element only must meet a broken later one.
func TestInvalidBreaksLaterArrayElements(t *testing.T) {
	words := &schemav1.Schema{Type: schemav1.SchemaType_SCHEMA_TYPE_ARRAY, Description: "words",
		Items: &schemav1.Schema{Type: schemav1.SchemaType_SCHEMA_TYPE_STRING, Description: "a word"}}
	s := &schemav1.Schema{Type: schemav1.SchemaType_SCHEMA_TYPE_OBJECT, Properties: map[string]*schemav1.Schema{"words": words}, Required: []string{"words"}}
	gen, ok := Invalid(s)
	if !ok {
		t.Fatal("an object with a required array has nothing to break")
	}
	later := 0
	for i := range 300 {
		b := gen.Example(i)
		arr, isArr := b.Args["words"].([]any)
		if !isArr || !strings.HasPrefix(b.How, "element ") {
			continue
		}
		for j, e := range arr {
			if _, str := e.(string); !str && j > 0 {
				later++
			}
		}
	}
	if later == 0 {
		t.Fatal("no draw of 300 broke an element past the first")
	}
}
