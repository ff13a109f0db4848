package mutants

import (
	"encoding/json"
	"time"

	"github.com/agentconform/conform/refkernel"

	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/retry"
	"github.com/agentconform/conform/spec/wire"
)

// Mutants of error recovery (ER-01..ER-12): broken retry policies and
// broken tool-error handling. Each swaps the Retry or ToolErrs part.
//
// No "no jitter" mutant is claimed: jitter cannot be told apart from the
// machine's own scheduling noise by arrival times alone, so no scenario
// can catch a kernel that waits exactly the nominal delay honestly (it
// satisfies every lower bound a jittered kernel does). Such a kernel
// passes ER-01 only partially unless it announces its delays
// (errors_unannounced_test.go).
func init() {
	register(
		Mutant{Name: "retry/constant-delay", Targets: []string{"ER-01", "ER-05"},
			Breaks: "every retry waits the base delay: the factor is never applied",
			Apply:  withRetry(constantDelay{})},
		Mutant{Name: "retry/no-wait", Targets: []string{"ER-01", "ER-05"},
			Breaks: "retries are sent at once, without backoff",
			Apply:  withRetry(noWait{})},
		Mutant{Name: "retry/retry-after-ignored", Targets: []string{"ER-01"},
			Breaks: "the model error's retry-after is ignored; only the backoff counts",
			Apply:  withRetry(ignoreRetryAfter{})},
		Mutant{Name: "retry/auth-error-retried", Targets: []string{"ER-03", "ER-07"},
			Breaks: "auth_error and invalid_request are retried with backoff like rate_limited",
			Apply:  withRetry(retryEverything{})},
		Mutant{Name: "retry/context-overflow-retried-as-is", Targets: []string{"ER-03", "ER-06"},
			Breaks: "context_length_exceeded is retried unchanged instead of reducing",
			Apply:  withRetry(overflowRetried{})},
		Mutant{Name: "retry/one-shared-cap", Targets: []string{"ER-02"},
			Breaks: "one counter for both caps: the session may retry only max_retries times in all",
			Apply:  withRetry(sharedCap{})},
		Mutant{Name: "retry/no-session-cap", Targets: []string{"ER-02"},
			Breaks: "session_max_retries is ignored: only the per-call cap holds",
			Apply:  withRetry(noSessionCap{})},
		Mutant{Name: "retry/silent-fallback", Targets: []string{"ER-07"},
			Breaks: "auth_error and invalid_request quietly route the request to the first fallback model",
			Apply:  withRetry(silentFallback{})},
		Mutant{Name: "retry/wrong-defaults", Targets: []string{"ER-05"},
			Breaks: "without a retry block the base delay is 100 ms instead of 500 ms",
			Apply:  withRetry(wrongDefaults{})},
		Mutant{Name: "retry/partial-block-accepted", Targets: []string{"ER-05"},
			Breaks: "a retry block missing some of its three base settings is accepted",
			Apply:  withRetry(acceptPartial{})},
		Mutant{Name: "retry/content-filter-as-unknown", Targets: []string{"ER-08"},
			Breaks: "a content filter (stop reason or error) is reported as an unknown error",
			Apply:  withRetry(filterAsUnknown{})},
		Mutant{Name: "tools/crash-ends-session", Targets: []string{"ER-04", "ER-09"},
			Breaks: "a tool crash fails the whole session",
			Apply:  withTools(crashFatal{})},
		Mutant{Name: "tools/crash-as-unknown", Targets: []string{"ER-09"},
			Breaks: "a tool crash becomes an unknown-category error, not process_crashed",
			Apply:  withTools(crashUnknown{})},
		Mutant{Name: "tools/crashes-never-trip", Targets: []string{"ER-10"},
			Breaks: "crashes never count toward the circuit breaker",
			Apply:  withTools(neverTrip{})},
		Mutant{Name: "tools/retry-ignores-idempotency", Targets: []string{"ER-11"},
			Breaks: "every retryable tool error is retried, non-idempotent resources and interactive calls included",
			Apply:  withTools(retryAnyTool{})},
		Mutant{Name: "tools/output-schema-ignored", Targets: []string{"ER-12"},
			Breaks: "a tool's output is never checked against its output_schema",
			Apply:  withTools(noOutputCheck{})},

		// The same broken backoffs from a kernel that declares no reading
		// of the jitter: silence must not let them pass. The undeclared
		// check is statistical (errors_backoff.go); a constant delay is
		// caught by it too, which harness/steps/errors_backoff_test.go
		// shows on noise-free waits (here its margin against a loaded
		// machine's scheduling noise would be under 100 ms).
		Mutant{Name: "retry/no-wait-undeclared", Targets: []string{"ER-01", "ER-05"},
			Breaks:  "retries are sent at once, without backoff, and no jitter reading is declared",
			Apply:   withRetry(noWait{}),
			Options: []refkernel.Option{withoutReadings("retry.jitter_min_ratio")}},
		Mutant{Name: "retry/no-backoff-undeclared", Targets: []string{"ER-01", "ER-05"},
			Breaks:  "retries are sent at once unless the error carries a retry-after, which is honoured; no jitter reading is declared",
			Apply:   withRetry(retryAfterOnly{}),
			Options: []refkernel.Option{withoutReadings("retry.jitter_min_ratio")}},
		Mutant{Name: "retry/wrong-defaults-undeclared", Targets: []string{"ER-05"},
			Breaks:  "without a retry block the base delay is 100 ms instead of 500 ms, and no jitter reading is declared",
			Apply:   withRetry(wrongDefaults{}),
			Options: []refkernel.Option{withoutReadings("retry.jitter_min_ratio")}},
		Mutant{Name: "retry/resent-when-retries-configured", Targets: []string{"ER-03"},
			Breaks: "once a retry block is configured, auth_error, invalid_request and context_length_exceeded are retried as they are, like rate_limited",
			Apply:  withRetry(resendWhenConfigured{})},
		Mutant{Name: "retry/silent-switch-to-builtin-model", Targets: []string{"ER-07"},
			Breaks: "auth_error and invalid_request quietly route the request to a built-in backup model the config does not list",
			Apply:  withRetry(silentBuiltinSwitch{})},
		Mutant{Name: "tools/output-schema-reads-only", Targets: []string{"ER-12"},
			Breaks: "only data_source outputs are checked against their output_schema; resource outputs go through unchecked",
			Apply:  withTools(readsOnlyOutputCheck{})},
	)
}

type retryAfterOnly struct{ retry.Backoff }

func (retryAfterOnly) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	d := ref.Decide(cfg, e, s)
	if d.Action == retry.Retry {
		d.Delay = 0
		if e.RetryAfterMS != nil {
			d.Delay = time.Duration(*e.RetryAfterMS) * time.Millisecond
		}
	}
	return d
}

type resendWhenConfigured struct{ retry.Backoff }

func (resendWhenConfigured) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	switch e.Category {
	case wire.ModelErrAuth, wire.ModelErrInvalidRequest, wire.ModelErrContextLength:
		if cfg != nil {
			e.Category = wire.ModelErrRateLimited
		}
	}
	return ref.Decide(cfg, e, s)
}

type silentBuiltinSwitch struct{ retry.Backoff }

func (silentBuiltinSwitch) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	if (e.Category == wire.ModelErrAuth || e.Category == wire.ModelErrInvalidRequest) && s.Attempt == 1 {
		return retry.Decision{Action: retry.Retry, Model: "builtin-backup-model"}
	}
	return ref.Decide(cfg, e, s)
}

type readsOnlyOutputCheck struct{ retry.StandardTools }

func (readsOnlyOutputCheck) CheckOutput(s *retry.OutputSchema, out json.RawMessage) error {
	if s.Kind() == wire.KindResource {
		return nil
	}
	return s.Check(out)
}

func withRetry(r retry.Policy) func(loop.Parts) loop.Parts {
	return func(p loop.Parts) loop.Parts {
		p.Retry = r
		return p
	}
}

func withTools(t retry.ToolPolicy) func(loop.Parts) loop.Parts {
	return func(p loop.Parts) loop.Parts {
		p.ToolErrs = t
		return p
	}
}

var ref = retry.Backoff{}

type constantDelay struct{ retry.Backoff }

func (constantDelay) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	d := ref.Decide(cfg, e, s)
	if d.Action == retry.Retry {
		d.Delay = ref.Delay(retry.Resolve(cfg), 1, e.RetryAfterMS)
	}
	return d
}

type noWait struct{ retry.Backoff }

func (noWait) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	d := ref.Decide(cfg, e, s)
	d.Delay = 0
	return d
}

type ignoreRetryAfter struct{ retry.Backoff }

func (ignoreRetryAfter) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	e.RetryAfterMS = nil
	return ref.Decide(cfg, e, s)
}

type retryEverything struct{ retry.Backoff }

func (retryEverything) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	if e.Category == wire.ModelErrAuth || e.Category == wire.ModelErrInvalidRequest {
		e.Category = wire.ModelErrRateLimited
	}
	return ref.Decide(cfg, e, s)
}

type overflowRetried struct{ retry.Backoff }

func (overflowRetried) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	if e.Category == wire.ModelErrContextLength {
		e.Category = wire.ModelErrRateLimited
	}
	return ref.Decide(cfg, e, s)
}

type sharedCap struct{ retry.Backoff }

func (sharedCap) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	d := ref.Decide(cfg, e, s)
	if d.Action == retry.Retry && s.SessionRetries >= retry.Resolve(cfg).MaxRetries {
		return retry.Decision{Action: retry.Fail}
	}
	return d
}

type noSessionCap struct{ retry.Backoff }

func (noSessionCap) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	s.SessionRetries = 0
	return ref.Decide(cfg, e, s)
}

type silentFallback struct{ retry.Backoff }

func (silentFallback) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	if (e.Category == wire.ModelErrAuth || e.Category == wire.ModelErrInvalidRequest) && len(s.Fallbacks) > 0 && s.Attempt == 1 {
		return retry.Decision{Action: retry.Retry, Model: s.Fallbacks[0]}
	}
	return ref.Decide(cfg, e, s)
}

type wrongDefaults struct{ retry.Backoff }

func (wrongDefaults) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	if cfg == nil {
		base, factor, n := 100, 2.0, 5
		cfg = &wire.Retry{BaseDelayMS: &base, BackoffFactor: &factor, MaxRetries: &n}
	}
	return ref.Decide(cfg, e, s)
}

type acceptPartial struct{ retry.Backoff }

func (acceptPartial) Validate(*wire.Retry) error { return nil }

type filterAsUnknown struct{ retry.Backoff }

func (filterAsUnknown) Classify(stop string, err *wire.ModelError) (string, *wire.ModelError) {
	if stop == wire.ModelErrContentFiltered {
		stop = wire.ModelErrUnknown
	}
	if err != nil && err.Category == wire.ModelErrContentFiltered {
		e := *err
		e.Category = wire.ModelErrUnknown
		err = &e
	}
	return stop, err
}

type crashFatal struct{ retry.StandardTools }

func (crashFatal) Failed(crashed bool, detail string) (wire.ToolResult, bool) {
	r, _ := retry.StandardTools{}.Failed(crashed, detail)
	return r, crashed
}

type crashUnknown struct{ retry.StandardTools }

func (crashUnknown) Failed(_ bool, detail string) (wire.ToolResult, bool) {
	return retry.StandardTools{}.Failed(false, detail)
}

type neverTrip struct{ retry.StandardTools }

func (neverTrip) Trips(int, *wire.CircuitBreaker) bool { return false }

type retryAnyTool struct{ retry.StandardTools }

func (retryAnyTool) Retry(_ wire.ToolSchema, attempt int) bool {
	return attempt <= retry.MaxToolRetries
}

type noOutputCheck struct{ retry.StandardTools }

func (noOutputCheck) CheckOutput(*retry.OutputSchema, json.RawMessage) error { return nil }
