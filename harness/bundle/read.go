package bundle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentconform/conform/spec"
)

// Bundle is a bundle read back.
type Bundle struct {
	Dir      string
	Manifest Manifest
	Feature  string
	Exchange []Line
	Stderr   string
}

// Read reads and checks the bundle in dir: its manifest must match
// spec/bundle.schema.json and name this format, every file must be there,
// and every exchange line must be a JSON object.
func Read(dir string) (*Bundle, error) {
	raw, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is not a repro bundle: it has no %s", dir, ManifestFile)
		}
		return nil, err
	}
	if err := ValidateManifest(raw); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	b := &Bundle{Dir: dir}
	if err := json.Unmarshal(raw, &b.Manifest); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestFile), err)
	}
	feature, err := os.ReadFile(filepath.Join(dir, FeatureFile))
	if err != nil {
		return nil, fmt.Errorf("the bundle's scenario: %w", err)
	}
	b.Feature = string(feature)
	stderr, err := os.ReadFile(filepath.Join(dir, StderrFile))
	if err != nil {
		return nil, fmt.Errorf("the bundle's stderr: %w", err)
	}
	b.Stderr = string(stderr)
	ex, err := os.ReadFile(filepath.Join(dir, ExchangeFile))
	if err != nil {
		return nil, fmt.Errorf("the bundle's exchange: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(ex))
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		var l Line
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("%s line %d: %v", filepath.Join(dir, ExchangeFile), n, err)
		}
		b.Exchange = append(b.Exchange, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, ExchangeFile), err)
	}
	return b, nil
}

// Find returns the bundles under dir: dir itself when it is one, else each
// folder directly under it that is one, sorted.
func Find(dir string) ([]string, error) {
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err == nil {
		return []string{dir}, nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			if _, err := os.Stat(filepath.Join(dir, e.Name(), ManifestFile)); err == nil {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
	}
	slices.Sort(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("%s holds no repro bundle (no %s in it or in a folder directly under it)", dir, ManifestFile)
	}
	return out, nil
}

const schemaURL = "https://conform.invalid/bundle.schema.json"

// ValidateManifest checks bundle.json against spec/bundle.schema.json.
func ValidateManifest(raw []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(spec.BundleSchema))
	if err != nil {
		return fmt.Errorf("bundle schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return fmt.Errorf("bundle schema: %w", err)
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return fmt.Errorf("bundle schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("not a bundle manifest this conform reads: %w", err)
	}
	return nil
}
