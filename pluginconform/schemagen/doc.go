// Package schemagen turns an operation's declared schema (the upstream
// pluggableharness.schema.v1 subset: type, properties, required, items,
// enum, description) into rapid generators of arguments that satisfy it
// (Args) and of arguments that break it in exactly one place (Invalid),
// and into a JSON Schema that conform validates with
// santhosh-tekuri/jsonschema (Compile). It serves PL-08 (Subset), PL-17
// (results against output_schema) and PL-18 (invalid arguments).
//
// The wire subset has no minimum, maximum or additionalProperties, so the
// generators need none: numbers are drawn from a small range of integers
// and finite floats, strings and arrays are short, and an object gets its
// required properties always and each optional one half the time.
package schemagen
