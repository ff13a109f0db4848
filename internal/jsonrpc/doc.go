// Package jsonrpc is the JSON-RPC 2.0 transport of conform.wire/v1: one JSON
// object per line, requests in both directions, cancellation by
// $/cancelRequest.
//
// It is written by hand rather than taken from a library because the checker
// needs what general-purpose JSON-RPC packages do not give: a hard cap on the
// line size (a flooding kernel must not exhaust memory), the raw bytes of every
// message for schema validation before decoding, and every framing or schema
// violation reported as an error naming what the peer did, so that the harness
// can turn it into an `error` verdict instead of hanging.
package jsonrpc
