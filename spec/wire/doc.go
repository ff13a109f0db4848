// Package wire is the Go binding of the conform.wire/v1 protocol: the method
// names, the params and results of every message, and their JSON Schemas
// (schemas/*.json, validated by Validate). Both the harness and the reference
// kernel speak it; a kernel in another language speaks the same JSON.
//
// Decode is the decoder the schemas agree with: whatever a schema accepts
// decodes into its Go type (an integral number in any notation, 1200.0 or
// 1.2e3, fills an integer field), except a number too large for its field,
// which is an error naming the field. decode_test.go checks both on every
// example and on integral-float respellings of each.
//
// The protocol is specified in spec/PROTOCOL.md. Every field exists because a
// requirement in spec/requirements.json needs it to be observed or provoked.
package wire
