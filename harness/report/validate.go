package report

import (
	"bytes"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaURL is the name the schema is registered under while compiling; it
// is never fetched.
const schemaURL = "https://conform.invalid/report.schema.json"

// ValidateJSON checks a JSON report against a JSON Schema, normally
// spec/report.schema.json (which the spec package embeds). Formats such as
// date-time are asserted, not just annotated. A schema that does not compile
// is reported as such, so a broken schema is never mistaken for a broken
// report.
func ValidateJSON(schema []byte, report []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return fmt.Errorf("report schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return fmt.Errorf("report schema: %w", err)
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return fmt.Errorf("report schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(report))
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("report does not match the schema: %w", err)
	}
	return nil
}
