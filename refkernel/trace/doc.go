// Package trace instruments the loop with OpenTelemetry and forwards every
// finished span to the harness as a trace/span notification.
//
// The loop opens a span for the session, for each turn, for each model
// request, for each tool-execution phase (steps 9, 9b, 12) and around the
// policy chain of step 11 (TA-17); the hook dispatcher opens one span per
// dispatch and one child per subscriber actually called (HD-13). Span names
// are free, so each span carries its role in the attribute conform.role.
//
// Spans go out through a simple (synchronous) span processor, so every span
// of a session has been sent before its session/run answer. With telemetry
// off the tracer does nothing at all (§3.10). Trace and span ids live only
// in spans: nothing else the kernel reports carries them (TA-32).
package trace
