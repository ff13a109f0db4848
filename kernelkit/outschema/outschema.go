package outschema

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/agentconform/conform/spec/wire"
)

// Schema is one tool's compiled output_schema.
type Schema struct {
	tool string
	kind string
	sch  *jsonschema.Schema
}

// Kind is the kind of the tool the schema belongs to (data_source,
// resource); the reference checks every kind alike, a variant may not.
func (s *Schema) Kind() string {
	if s == nil {
		return ""
	}
	return s.kind
}

// Compile compiles every declared output_schema once, at session start; a
// schema that does not compile refuses the config.
func Compile(tools []wire.ToolSchema) (map[string]*Schema, error) {
	out := map[string]*Schema{}
	for _, t := range tools {
		if t.OutputSchema == nil {
			continue
		}
		raw, err := json.Marshal(t.OutputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %q output_schema: %w", t.Name, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("tool %q output_schema: %w", t.Name, err)
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		url := "urn:conform:output-schema:" + t.Name
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("tool %q output_schema: %w", t.Name, err)
		}
		sch, err := c.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("tool %q output_schema does not compile: %w", t.Name, err)
		}
		out[t.Name] = &Schema{tool: t.Name, kind: t.Kind, sch: sch}
	}
	return out, nil
}

// Check validates an output; a nil schema accepts anything. An absent
// output is checked as null.
func (s *Schema) Check(out json.RawMessage) error {
	if s == nil {
		return nil
	}
	if len(bytes.TrimSpace(out)) == 0 {
		out = json.RawMessage("null")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		return fmt.Errorf("the output of %q is not JSON: %v", s.tool, err)
	}
	if err := s.sch.Validate(doc); err != nil {
		return fmt.Errorf("the output of %q does not match its output_schema: %s", s.tool, firstCause(err))
	}
	return nil
}

// firstCause is the innermost reason of a validation error, short enough
// for a tool result.
func firstCause(err error) string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err.Error()
	}
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	loc := ""
	for _, tok := range ve.InstanceLocation {
		loc += "/" + tok
	}
	if loc == "" {
		loc = "/"
	}
	return "at " + loc + ": " + ve.ErrorKind.LocalizedString(printer)
}

var printer = message.NewPrinter(language.English)
