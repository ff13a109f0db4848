package baseline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/agentconform/conform/spec"
)

// File is a baseline as written on disk.
type File struct {
	Version          int     `json:"version" yaml:"version"`
	Kernel           string  `json:"kernel,omitempty" yaml:"kernel,omitempty"`
	ExpectedFailures []Entry `json:"expected_failures" yaml:"expected_failures"`
}

// Entry is one known failure.
type Entry struct {
	ID string `json:"id" yaml:"id"`
	// Scenarios, when set, narrow the entry to failures in these scenarios
	// (file:line as reports name them).
	Scenarios []string `json:"scenarios,omitempty" yaml:"scenarios,omitempty"`
	Reason    string   `json:"reason" yaml:"reason"`
	Link      string   `json:"link,omitempty" yaml:"link,omitempty"`
}

// isYAML says whether a file name asks for YAML.
func isYAML(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		return true
	}
	return false
}

// Load reads a baseline, JSON or YAML by its extension (an unknown
// extension: JSON, then YAML), checks it against spec/baseline.schema.json,
// and refuses IDs the catalog does not know and IDs listed twice: a typo
// would otherwise never match and hide nothing, silently.
func Load(path string, cat *spec.Catalog) (*File, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(raw, isYAML(path), cat)
}

// Parse is Load on bytes.
func Parse(raw []byte, asYAML bool, cat *spec.Catalog) (*File, error) {
	doc, err := toJSON(raw, asYAML)
	if err != nil {
		return nil, err
	}
	if err := Validate(doc); err != nil {
		return nil, err
	}
	var f File
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var errs []string
	for i, e := range f.ExpectedFailures {
		switch {
		case cat != nil && !known(cat, e.ID):
			errs = append(errs, fmt.Sprintf("entry %d: %s", i+1, unknownID(cat, e.ID)))
		case seen[e.ID]:
			errs = append(errs, fmt.Sprintf("entry %d: %s is listed twice; give it one entry (with every scenario it fails in, or none)", i+1, e.ID))
		}
		seen[e.ID] = true
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return &f, nil
}

// unknownID says why id is not cat's: a requirement of another profile
// (a model provider's baseline given to a context provider's run) is named
// with both profiles, anything else is not a requirement at all.
func unknownID(cat *spec.Catalog, id string) string {
	all, err := spec.LoadAll()
	if err == nil {
		if q, ok := all.Get(id); ok {
			return fmt.Sprintf("%s is a requirement of the %s profile, and this run is judged against the %s profile", id, q.Profile, profilesOf(cat))
		}
	}
	return fmt.Sprintf("%s is not a requirement of the catalog (version %d)", id, cat.Version)
}

// profilesOf names the profiles of cat's rows (the kernel catalog has two).
func profilesOf(cat *spec.Catalog) string {
	var out []string
	for _, q := range cat.Requirements {
		if !slices.Contains(out, q.Profile) {
			out = append(out, q.Profile)
		}
	}
	return strings.Join(out, " and ")
}

func known(cat *spec.Catalog, id string) bool {
	return slices.Contains(cat.IDs(), id)
}

// toJSON turns YAML (or JSON, which is YAML too) into JSON for the schema.
func toJSON(raw []byte, asYAML bool) ([]byte, error) {
	if !asYAML && json.Valid(raw) {
		return raw, nil
	}
	var v any
	if err := yaml.Unmarshal(raw, &v); err != nil {
		if asYAML {
			return nil, fmt.Errorf("not valid YAML: %v", err)
		}
		return nil, fmt.Errorf("neither JSON nor YAML: %v", err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("YAML that has no JSON form (a non-string key?): %v", err)
	}
	return out, nil
}

const schemaURL = "https://conform.invalid/baseline.schema.json"

// Validate checks a baseline, as JSON, against spec/baseline.schema.json.
func Validate(doc []byte) error {
	sdoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(spec.BaselineSchema))
	if err != nil {
		return fmt.Errorf("baseline schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(schemaURL, sdoc); err != nil {
		return fmt.Errorf("baseline schema: %w", err)
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return fmt.Errorf("baseline schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("not a baseline (spec/baseline.schema.json): %w", err)
	}
	return nil
}

// Encode writes f as YAML when path ends in .yaml or .yml, else as JSON.
func Encode(f *File, path string) ([]byte, error) {
	if f.ExpectedFailures == nil {
		f.ExpectedFailures = []Entry{}
	}
	if isYAML(path) {
		var buf bytes.Buffer
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(f); err != nil {
			return nil, err
		}
		return buf.Bytes(), enc.Close()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	err := enc.Encode(f)
	return buf.Bytes(), err
}
