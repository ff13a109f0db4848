package spec

import _ "embed"

// PluginBundleSchema is the JSON Schema of a plugin repro bundle's
// manifest (conform plugin --bundle DIR: DIR/<ID>/bundle.json).
//
//go:embed plugin-bundle.schema.json
var PluginBundleSchema []byte
