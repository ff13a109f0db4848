// Package outschema checks a tool's output against the output_schema its
// config declares (JSON Schema 2020-12): the reference kernel's tool-error
// policy (refkernel/retry) and the kit's Turn.Invoke share it, so a kernel
// built on the kit refuses what the reference refuses. It serves ER-12 (an
// output that does not match is an unknown-category error, never a
// success).
package outschema
