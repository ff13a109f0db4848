// Package ids generates the identifiers the kernel mints itself: turn ids
// (part of every call_context, TA-31) and plan item ids (PA-14). Session ids
// come from the harness. The generator is injected so tests are repeatable.
package ids
