package spec

import _ "embed"

// BadgeSchema is the JSON Schema of the shields.io endpoint document
// conform run --badge-json writes.
//
//go:embed badge.schema.json
var BadgeSchema []byte
