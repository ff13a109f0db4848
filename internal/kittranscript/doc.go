// Package kittranscript checks the transcript an adapter kit records of
// everything it sends (one JSON object a line: method, part and body, as
// the Python and Node kits write it under CONFORM_KIT_TRANSCRIPT) against
// the wire schemas of spec/wire. The kits' own tests use it, so that a kit
// in any language is held to the same schemas as conform itself.
package kittranscript
