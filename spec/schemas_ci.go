package spec

import _ "embed"

// BundleSchema is the JSON Schema of a repro bundle's manifest (bundle.json).
//
//go:embed bundle.schema.json
var BundleSchema []byte

// BaselineSchema is the JSON Schema of a baseline of known failures (its
// YAML form is read as the same document).
//
//go:embed baseline.schema.json
var BaselineSchema []byte
