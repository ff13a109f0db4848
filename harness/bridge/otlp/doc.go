// Package otlp receives the OpenTelemetry a coding agent exports and maps
// its spans onto the trace rows (issue 27, the bridge).
//
// Receiver is an OTLP/HTTP endpoint (/v1/traces, /v1/logs, /v1/metrics;
// protobuf and JSON bodies, gzip or not, decoded with the collector's own
// pdata packages). Each span becomes a wire.Span handed to a func — the
// agent kernel's kernelkit.Host.Span — so the harness judges it exactly as
// a wire kernel's trace/span. Logs and metrics are accepted and counted:
// observations, never verdicts.
//
// A span's conform role comes from its conform.role attribute, else from
// the profile's rules for the agent's own span names (RoleRules); a span
// with no role is counted and not forwarded, because trace/span requires a
// role and the bridge never invents one. The session is the one the agent
// kernel is running (conform.session_id overrides it); the turn is the
// conform.turn_id attribute when present.
//
// Decode and Spans are also used offline by `conform trace check FILE`,
// which judges a recorded OTLP JSON file with the span checks of
// harness/steps (CheckTrace).
//
// Requirements served: TA-17 (turn, model call, tool execution and policy
// chain spans), HD-13 (hook dispatch and subscriber spans); TA-32 is named
// by the offline check as not verifiable from a trace alone.
package otlp
