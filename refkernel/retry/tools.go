package retry

import (
	"encoding/json"

	"github.com/agentconform/conform/kernelkit/outschema"
	"github.com/agentconform/conform/spec/wire"
)

// MaxToolRetries is how often the reference retries a retryable tool error
// of a call it may retry (ER-11).
const MaxToolRetries = 2

// ToolPolicy is the swappable tool-error part.
type ToolPolicy interface {
	// Retry says whether a retryable error of the attempt-th try (from 1)
	// of a call to tool is tried again automatically.
	Retry(tool wire.ToolSchema, attempt int) bool
	// Failed is the result of a call whose request failed in transport;
	// crashed says the provider process died. fatal ends the session
	// instead (the reference never does: ER-04).
	Failed(crashed bool, detail string) (res wire.ToolResult, fatal bool)
	// CheckOutput checks a successful output against the tool's compiled
	// output_schema (nil when it declares none) (ER-12).
	CheckOutput(s *OutputSchema, out json.RawMessage) error
	// Trips says whether crashes crashes in a row of one provider trip the
	// circuit breaker (ER-10).
	Trips(crashes int, cb *wire.CircuitBreaker) bool
}

// StandardTools is the reference tool-error part.
type StandardTools struct{}

// Retry implements ToolPolicy: only data_source calls and resource
// operations declared idempotent may be retried (ER-11), at most
// MaxToolRetries times; interactive calls and other resources never.
func (StandardTools) Retry(t wire.ToolSchema, attempt int) bool {
	switch {
	case attempt > MaxToolRetries:
		return false
	case t.Kind == wire.KindDataSource:
		return true
	case t.Kind == wire.KindResource:
		return t.Idempotent
	}
	return false
}

// Failed implements ToolPolicy: a failed invoke is the call's error result
// and the session goes on (ER-04); the kernel itself names a crash
// process_crashed, a category no plugin sends (ER-09).
func (StandardTools) Failed(crashed bool, detail string) (wire.ToolResult, bool) {
	if crashed {
		return wire.ToolResult{IsError: true, ErrorCategory: wire.ToolErrProcessCrashed,
			Content: "the tool provider crashed during the call"}, false
	}
	return wire.ToolResult{IsError: true, ErrorCategory: wire.ToolErrUnknown,
		Content: "the tool call failed: " + detail}, false
}

// CheckOutput implements ToolPolicy.
func (StandardTools) CheckOutput(s *OutputSchema, out json.RawMessage) error {
	return s.Check(out)
}

// Trips implements ToolPolicy. Crashes trip the circuit breaker the config
// declares, at its consecutive threshold (or window_max when only the
// window tier is set); without a circuit_breaker block there is no breaker
// to trip (reading circuit_breaker.default: off). Reading
// "errors.crash_breaker.count": crashes are counted per provider, in a row
// (an answered call of that provider resets the count), apart from the
// denial history of the policy breaker (PA-05).
func (StandardTools) Trips(crashes int, cb *wire.CircuitBreaker) bool {
	if cb == nil {
		return false
	}
	limit := cb.Consecutive
	if limit <= 0 {
		limit = cb.WindowMax
	}
	return limit > 0 && crashes >= limit
}

// OutputSchema is one tool's compiled output_schema, checked as every kernel
// on the kit checks it (kernelkit/outschema).
type OutputSchema = outschema.Schema

// CompileOutputSchemas compiles every declared output_schema once, at
// session start; a schema that does not compile refuses the config.
func CompileOutputSchemas(tools []wire.ToolSchema) (map[string]*OutputSchema, error) {
	return outschema.Compile(tools)
}
