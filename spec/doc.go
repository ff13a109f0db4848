// Package spec holds what the conformance toolkit is measured against: the
// requirement catalog (requirements.json) and, in the wire subpackage, the
// protocol's messages and JSON Schemas.
//
// The catalog is the single source of truth for requirement IDs, levels and
// capabilities. It is embedded in the binary so that scenario tags, reports
// and the harness all check against the same list, and a typo in a tag is
// caught instead of silently testing nothing.
//
// Beside it, the clause map (clauses.json, clauses.go) splits the
// requirements of the mapped areas into clauses and names, for each, the
// checks and scenarios that prove every side of it (issue 29); its
// coverage is reports/clauses.md.
package spec
