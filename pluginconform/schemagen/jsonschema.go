package schemagen

import (
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	schemav1 "github.com/agentconform/conform/api/gen/pluggableharness/schema/v1"
)

// jsonType is the JSON Schema type of a node; "" for an untyped node.
func jsonType(t schemav1.SchemaType) string {
	switch t {
	case schemav1.SchemaType_SCHEMA_TYPE_OBJECT:
		return "object"
	case schemav1.SchemaType_SCHEMA_TYPE_STRING:
		return "string"
	case schemav1.SchemaType_SCHEMA_TYPE_NUMBER:
		return "number"
	case schemav1.SchemaType_SCHEMA_TYPE_BOOLEAN:
		return "boolean"
	case schemav1.SchemaType_SCHEMA_TYPE_ARRAY:
		return "array"
	}
	return ""
}

// ToJSONSchema writes s as a JSON Schema document (draft 2020-12).
func ToJSONSchema(s *schemav1.Schema) map[string]any {
	doc := node(s)
	doc["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	return doc
}

func node(s *schemav1.Schema) map[string]any {
	out := map[string]any{}
	if s == nil {
		return out
	}
	if t := jsonType(s.GetType()); t != "" {
		out["type"] = t
	}
	if len(s.GetProperties()) > 0 {
		props := map[string]any{}
		for name, p := range s.GetProperties() {
			props[name] = node(p)
		}
		out["properties"] = props
	}
	if len(s.GetRequired()) > 0 {
		req := make([]any, len(s.GetRequired()))
		for i, r := range s.GetRequired() {
			req[i] = r
		}
		out["required"] = req
	}
	if s.GetItems() != nil {
		out["items"] = node(s.GetItems())
	}
	if len(s.GetEnumValues()) > 0 {
		enum := make([]any, len(s.GetEnumValues()))
		for i, e := range s.GetEnumValues() {
			enum[i] = e
		}
		out["enum"] = enum
	}
	return out
}

// Validator checks values against one compiled schema.
type Validator struct{ s *jsonschema.Schema }

// Compile compiles s; name only labels error messages.
func Compile(name string, s *schemav1.Schema) (*Validator, error) {
	c := jsonschema.NewCompiler()
	url := "conform:///" + strings.ReplaceAll(name, " ", "_") + ".json"
	if err := c.AddResource(url, ToJSONSchema(s)); err != nil {
		return nil, err
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, err
	}
	return &Validator{s: sch}, nil
}

// Validate returns nil when v (JSON as encoding/json decodes it) conforms,
// else an error listing where and why it does not.
func (v *Validator) Validate(val any) error {
	err := v.s.Validate(val)
	if err == nil {
		return nil
	}
	if ve, ok := err.(*jsonschema.ValidationError); ok {
		var lines []string
		pr := message.NewPrinter(language.English)
		for _, leaf := range leaves(ve) {
			loc := "/" + strings.Join(leaf.InstanceLocation, "/")
			lines = append(lines, fmt.Sprintf("at %s: %s", loc, leaf.ErrorKind.LocalizedString(pr)))
		}
		sort.Strings(lines)
		return fmt.Errorf("%s", strings.Join(lines, "; "))
	}
	return err
}

func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}
