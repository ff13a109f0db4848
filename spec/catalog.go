package spec

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

//go:embed requirements.json
var catalogJSON []byte

// matrixRows is the size of the conformance summary matrix. The brief once
// assumed 42; the digest counts 44 at the pinned upstream commit.
const matrixRows = 44

// Catalog is the parsed requirement catalog. The value returned by Load is
// shared, so callers must treat it as read-only.
type Catalog struct {
	Version      int           `json:"version"`
	Areas        []Area        `json:"areas"`
	Requirements []Requirement `json:"requirements"`

	byID map[string]int
}

// Area is one ID prefix and the part of the loop it covers.
type Area struct {
	Prefix string `json:"prefix"`
	Name   string `json:"name"`
}

// Requirement is one catalog entry. Level keeps the digest's wording; Class is
// the normalized form that verdicts and skipping are keyed on.
type Requirement struct {
	ID           string `json:"id"`
	Area         string `json:"area"`
	Title        string `json:"title"`
	Level        string `json:"level"`
	Class        string `json:"class"`
	Matrix       bool   `json:"matrix"`
	MatrixRow    int    `json:"matrix_row,omitempty"`
	Statement    string `json:"statement"`
	Source       string `json:"source"`
	Capability   string `json:"capability,omitempty"`
	Profile      string `json:"profile"`
	Unverifiable string `json:"unverifiable,omitempty"`
}

var (
	idPattern = regexp.MustCompile(`^(TA|HD|PA|SA|ER|DF|PL|MP|CP|MM)-\d{2}$`)

	// levelClass maps every level spelling the digest uses to its class.
	levelClass = map[string]string{
		"MUST":                    "must",
		"MUST (default)":          "must",
		"MUST (implied)":          "must",
		"MUST NOT":                "must",
		"SHOULD":                  "should",
		"MAY":                     "may",
		"MAY (per tool provider)": "may",
		"seed":                    "seed",
	}

	profiles = map[string]bool{"agent-loop": true, "deterministic-first": true, ProfilePlugin: true,
		ProfileModelProvider: true, ProfileContextProvider: true, ProfileMemoryProvider: true}
)

var (
	loadOnce sync.Once
	loaded   *Catalog
	loadErr  error
)

// Load returns the kernel catalog: the embedded file without the plugin
// profile's rows and area (LoadPlugin has those), so a kernel run never
// reports plugin rows. It is parsed once; a defect in the embedded file is
// a build mistake, so every caller sees the same error.
func Load() (*Catalog, error) {
	loadOnce.Do(func() {
		all, err := LoadAll()
		if err != nil {
			loadErr = err
			return
		}
		loaded = all.profileView("")
	})
	return loaded, loadErr
}

// Parse decodes and validates a catalog. It reports every defect it finds, not
// just the first, so one edit-and-rerun cycle fixes the whole file.
func Parse(data []byte) (*Catalog, error) {
	// Requirements are kept raw at first so that a decoding error can be
	// reported against the entry it occurred in.
	var top struct {
		Version      int               `json:"version"`
		Areas        []Area            `json:"areas"`
		Requirements []json.RawMessage `json:"requirements"`
	}
	if err := decodeStrict(data, &top); err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}

	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(format, args...))
	}

	if top.Version != 1 {
		fail("catalog: unsupported version %d", top.Version)
	}
	areas := make(map[string]bool, len(top.Areas))
	for i, a := range top.Areas {
		switch {
		case a.Prefix == "" || a.Name == "":
			fail("area %d: prefix and name are required", i)
		case areas[a.Prefix]:
			fail("area %d: duplicate prefix %q", i, a.Prefix)
		}
		areas[a.Prefix] = true
	}

	c := &Catalog{
		Version:      top.Version,
		Areas:        top.Areas,
		Requirements: make([]Requirement, 0, len(top.Requirements)),
		byID:         make(map[string]int, len(top.Requirements)),
	}
	rowOwner := make(map[int]string, matrixRows)
	undecoded := false
	for i, raw := range top.Requirements {
		var r Requirement
		if err := decodeStrict(raw, &r); err != nil {
			fail("requirement %d (%s): %w", i, idHint(raw), err)
			undecoded = true
			continue
		}
		bad := func(field, format string, args ...any) {
			fail("requirement %d (%s): field %q: %s", i, orNoID(r.ID), field, fmt.Sprintf(format, args...))
		}

		if !idPattern.MatchString(r.ID) {
			bad("id", "%q does not match %s", r.ID, idPattern)
		} else if j, dup := c.byID[r.ID]; dup {
			bad("id", "duplicate of requirement %d", j)
		} else {
			c.byID[r.ID] = len(c.Requirements)
		}
		if prefix, _, _ := strings.Cut(r.ID, "-"); r.Area != prefix {
			bad("area", "%q does not match the ID prefix %q", r.Area, prefix)
		} else if !areas[r.Area] {
			bad("area", "%q is not a declared area", r.Area)
		}
		class, known := levelClass[r.Level]
		if !known {
			bad("level", "unknown level %q", r.Level)
		} else if r.Class != class {
			bad("class", "%q does not match level %q (want %q)", r.Class, r.Level, class)
		}
		if strings.TrimSpace(r.Title) == "" {
			bad("title", "empty")
		}
		if strings.TrimSpace(r.Statement) == "" {
			bad("statement", "empty")
		}
		if strings.TrimSpace(r.Source) == "" {
			bad("source", "empty")
		}
		// A kernel may only decline what the spec lets it decline.
		if r.Capability != "" && class == "must" {
			bad("capability", "%q given on a must-class entry", r.Capability)
		}
		if !profiles[r.Profile] {
			bad("profile", "unknown profile %q", r.Profile)
		} else if area, isPlugin := pluginProfiles[r.Profile]; isPlugin && r.Area != area {
			bad("profile", "%q in area %s: the %s profile is exactly the %s area", r.Profile, r.Area, r.Profile, area)
		} else if !isPlugin && pluginArea(r.Area) {
			bad("profile", "%q in area %s: the %s area belongs to a plugin profile", r.Profile, r.Area, r.Area)
		}

		switch {
		case r.Matrix && (r.MatrixRow < 1 || r.MatrixRow > matrixRows):
			bad("matrix_row", "%d is outside 1..%d", r.MatrixRow, matrixRows)
		case r.Matrix && rowOwner[r.MatrixRow] != "":
			bad("matrix_row", "row %d already belongs to %s", r.MatrixRow, rowOwner[r.MatrixRow])
		case r.Matrix:
			rowOwner[r.MatrixRow] = r.ID
		case r.MatrixRow != 0:
			bad("matrix_row", "%d set on an entry that is not a matrix row", r.MatrixRow)
		}
		c.Requirements = append(c.Requirements, r)
	}
	// An entry that failed to decode may own a row; do not blame the gap on
	// the matrix as well.
	for row := 1; row <= matrixRows && !undecoded; row++ {
		if rowOwner[row] == "" {
			fail("catalog: matrix row %d has no requirement", row)
		}
	}

	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c, nil
}

// decodeStrict rejects unknown fields and trailing data, so a misspelt key
// fails loudly instead of leaving a field at its zero value.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// idHint recovers the ID of an entry that failed strict decoding, for the
// error message only.
func idHint(raw json.RawMessage) string {
	var v struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &v)
	return orNoID(v.ID)
}

func orNoID(id string) string {
	if id == "" {
		return "no ID"
	}
	return id
}

// Get returns the requirement with the given ID.
func (c *Catalog) Get(id string) (Requirement, bool) {
	i, ok := c.byID[id]
	if !ok {
		return Requirement{}, false
	}
	return c.Requirements[i], true
}

// IDs returns every requirement ID in catalog order.
func (c *Catalog) IDs() []string {
	ids := make([]string, len(c.Requirements))
	for i, r := range c.Requirements {
		ids[i] = r.ID
	}
	return ids
}

// CheckTags reports scenario tags that look like requirement IDs but name no
// catalog entry. Other tags (@must, @wip, …) are not the catalog's business.
func (c *Catalog) CheckTags(tags []string) error {
	var unknown []string
	seen := make(map[string]bool)
	for _, tag := range tags {
		id := strings.TrimPrefix(tag, "@")
		if !idPattern.MatchString(id) || seen[tag] {
			continue
		}
		seen[tag] = true
		if _, ok := c.byID[id]; !ok {
			unknown = append(unknown, tag)
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("unknown requirement tag(s): %s", strings.Join(unknown, ", "))
	}
	return nil
}

// AreaOf returns the area an ID's prefix belongs to, or the zero Area if the
// prefix is not declared. The ID itself need not be in the catalog.
func (c *Catalog) AreaOf(id string) Area {
	prefix, _, _ := strings.Cut(id, "-")
	for _, a := range c.Areas {
		if a.Prefix == prefix {
			return a
		}
	}
	return Area{}
}

// CatalogJSON returns the embedded catalog file's bytes (every profile),
// for a digest of the suite (harness/provenance). The slice is a copy.
func CatalogJSON() []byte { return bytes.Clone(catalogJSON) }
