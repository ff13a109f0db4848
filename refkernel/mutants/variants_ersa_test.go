package mutants

import (
	"slices"
	"strconv"
	"time"

	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/retry"
	"github.com/agentconform/conform/spec/wire"
)

// Legal variants of error recovery: correct kernels that read an open
// point of the spec another way, or are slower but still correct. The
// suite must blame none of them.
func init() {
	registerVariant(
		Variant{Name: "errors/tool-crash-ends-session",
			Reading: "a tool crash ends the session, naming process_crashed (ER-09), instead of becoming the call's error result: ER-04 is a SHOULD, and the kernel leaves its capability errors.tool_crash_result out (and errors.crash_breaker, since no second crash can come)",
			Apply:   withTools(crashFatal{}),
			Options: []refkernel.Option{withoutCapabilities("errors.tool_crash_result", "errors.crash_breaker")}},
		Variant{Name: "errors/non-retryable-never-named",
			Reading: "auth_error and invalid_request are never resent and never named: the kernel reports them as an unknown model error and fails the session (ER-03 forbids the resend only, ER-07 a silent switch only; naming them is recorded, not judged)",
			Apply:   withRetry(unnamedErrors{})},
		Variant{Name: "errors/backoff-with-long-added-delay",
			Reading: "every backoff wait is the jittered exponential delay plus a fixed 1 s, declared as retry.added_delay_ms (A-26 leaves the delay formula open); the scenarios' time stretches to fit, and no retry is called a hang",
			Apply:   withRetry(addedDelay{extra: time.Second}),
			Options: []refkernel.Option{withReading("retry.added_delay_ms", strconv.Itoa(1000))},
			Tags:    "@ER-01,@ER-02,@ER-05"},
	)
}

// withoutCapabilities leaves capabilities out of the initialize answer.
func withoutCapabilities(names ...string) refkernel.Option {
	return refkernel.WithDeclaration(func(r *wire.InitializeResult) {
		r.Capabilities = slices.DeleteFunc(r.Capabilities, func(c string) bool { return slices.Contains(names, c) })
	})
}

// withReading declares (or, with value "", leaves out) one reading.
func withReading(key, value string) refkernel.Option {
	return refkernel.WithDeclaration(func(r *wire.InitializeResult) {
		if r.Readings == nil {
			r.Readings = map[string]string{}
		}
		r.Readings[key] = value
	})
}

// withoutReadings leaves readings out.
func withoutReadings(keys ...string) refkernel.Option {
	return refkernel.WithDeclaration(func(r *wire.InitializeResult) {
		for _, k := range keys {
			delete(r.Readings, k)
		}
	})
}

type unnamedErrors struct{ retry.Backoff }

func (unnamedErrors) Classify(stop string, err *wire.ModelError) (string, *wire.ModelError) {
	if err != nil && (err.Category == wire.ModelErrAuth || err.Category == wire.ModelErrInvalidRequest) {
		return stop, &wire.ModelError{Category: wire.ModelErrUnknown, Message: "the model request failed"}
	}
	return stop, err
}

type addedDelay struct {
	retry.Backoff
	extra time.Duration
}

func (a addedDelay) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	d := ref.Decide(cfg, e, s)
	if d.Action == retry.Retry {
		d.Delay += a.extra
	}
	return d
}
