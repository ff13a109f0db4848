package refplugin

import (
	"fmt"
	"slices"
	"sort"

	schemav1 "github.com/agentconform/conform/api/gen/pluggableharness/schema/v1"
)

// validate checks v against the subset schema s, the plugin's own way (it
// does not share conform's validator, so the two can disagree).
func validate(v any, s *schemav1.Schema, at string) error {
	if at == "" {
		at = "arguments"
	}
	switch s.GetType() {
	case schemav1.SchemaType_SCHEMA_TYPE_OBJECT:
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s must be an object", at)
		}
		for _, r := range s.GetRequired() {
			if _, ok := m[r]; !ok {
				return fmt.Errorf("%s: %q is required", at, r)
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if ps, ok := s.GetProperties()[k]; ok {
				if err := validate(m[k], ps, at+"."+k); err != nil {
					return err
				}
			}
		}
	case schemav1.SchemaType_SCHEMA_TYPE_STRING:
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s must be a string", at)
		}
		if e := s.GetEnumValues(); len(e) > 0 && !slices.Contains(e, str) {
			return fmt.Errorf("%s must be one of %v", at, e)
		}
	case schemav1.SchemaType_SCHEMA_TYPE_NUMBER:
		if _, ok := v.(float64); !ok {
			return fmt.Errorf("%s must be a number", at)
		}
	case schemav1.SchemaType_SCHEMA_TYPE_BOOLEAN:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s must be a boolean", at)
		}
	case schemav1.SchemaType_SCHEMA_TYPE_ARRAY:
		a, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s must be an array", at)
		}
		for i, e := range a {
			if err := validate(e, s.GetItems(), fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	}
	return nil
}
