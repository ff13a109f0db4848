// Package jsonstrict reads a JSON text the way conform.wire/v1 requires
// before any decoder sees it: keys repeated in one object, exactly or with
// different case, are refused (Go's encoding/json takes the last of two equal
// keys and matches struct fields ignoring case, so either would let a kernel
// say two things at once and be understood as one), and every integral
// number is rewritten as an integer literal (1200.0 → 1200), because JSON
// does not distinguish the two and the schemas' "integer" accepts both while
// Go's integer decoding accepts only the second.
//
// It serves the transport (internal/jsonrpc) and the wire binding's decoder
// (spec/wire.Decode); see spec/PROTOCOL.md §2 (framing) and issue 13.
package jsonstrict
