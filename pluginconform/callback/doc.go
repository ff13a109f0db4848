// Package callback is the KernelCallbackService conform serves back to a
// plugin under test on the fixed go-plugin broker stream (upstream's
// pkg/common.CallbackBrokerID, 1): a plugin that dials the kernel finds it
// there, as it would under a real kernel.
//
// It serves Emit, Log and GetTelemetryConfig (telemetry off) and records
// what the plugin sent, so the checks can scan it for secrets (PL-24) and
// hand emitted payloads back to Render (PL-26). Every other callback method
// answers UNIMPLEMENTED.
package callback
