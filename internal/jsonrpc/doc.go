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
//
// Violations that end the connection, each with its own message: a line
// longer than the cap, not valid UTF-8, not JSON, with a key repeated in one
// object (exactly or ignoring case; internal/jsonstrict), with a member name
// in the wrong case ("RESULT"), without "jsonrpc":"2.0"; a response carrying
// both result and error, answering no request, or answering one a second
// time; a request reusing the id of one still being served; with
// Options.Handshake, anything sent before our first call was answered.
// Violations that are reported while the connection goes on: params or
// results that fail Options.Validate, a notification its handler refuses, a
// $/cancelRequest that names no id.
//
// Integral numbers in params and results reach handlers and callers as
// integer literals (1200.0 → 1200): JSON does not distinguish them.
package jsonrpc
