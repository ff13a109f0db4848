package runner

import (
	"fmt"

	"github.com/agentconform/conform/spec"
	"github.com/agentconform/conform/spec/wire"
)

// glueOf turns the kernel's glue list (PROTOCOL.md §15) into the report's
// map, and says what it could not use: a requirement the catalog does not
// know, or one named twice (the first reason is kept). The label changes no
// verdict, so a bad entry is a warning, never an error.
func glueOf(cat *spec.Catalog, notes []wire.GlueNote) (map[string]string, []string) {
	if len(notes) == 0 {
		return nil, nil
	}
	glue := make(map[string]string, len(notes))
	var warnings []string
	for _, n := range notes {
		if _, ok := cat.Get(n.Requirement); !ok {
			warnings = append(warnings, fmt.Sprintf("the kernel labels %q glue, which the catalog does not know; the label is ignored", n.Requirement))
			continue
		}
		if _, dup := glue[n.Requirement]; dup {
			warnings = append(warnings, fmt.Sprintf("the kernel labels %s glue twice; the first reason is kept", n.Requirement))
			continue
		}
		glue[n.Requirement] = n.Reason
	}
	return glue, warnings
}
