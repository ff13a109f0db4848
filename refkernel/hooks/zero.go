package hooks

// ZeroTimeout is the reference kernel's reading hooks.zero_timeout
// (PROTOCOL.md §15): what an effective subscriber timeout of 0 ms means
// (hooks.default_timeout_ms 0 and no timeout_ms of the subscriber's own).
// The specification gives no value and no meaning for 0; the
// reference reads it as no deadline at all (Timeout returns zero, which
// internal/await treats as none) and Validate accepts it.
const ZeroTimeout = "none"
