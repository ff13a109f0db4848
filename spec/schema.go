package spec

import _ "embed"

// ReportSchema is the JSON Schema of conform's JSON report.
//
//go:embed report.schema.json
var ReportSchema []byte
