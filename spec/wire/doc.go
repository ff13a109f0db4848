// Package wire is the Go binding of the conform.wire/v1 protocol: the method
// names, the params and results of every message, and their JSON Schemas
// (schemas/*.json, validated by Validate). Both the harness and the reference
// kernel speak it; a kernel in another language speaks the same JSON.
//
// The protocol is specified in spec/PROTOCOL.md. Every field exists because a
// requirement in spec/requirements.json needs it to be observed or provoked.
package wire
