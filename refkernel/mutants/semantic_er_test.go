package mutants

import (
	"time"

	"github.com/agentconform/conform/refkernel/retry"
	"github.com/agentconform/conform/spec/wire"
)

// Semantic mutants of the error-recovery area (issue 29): retry loops as
// they are really written wrong, each breaking one clause of
// spec/clauses.json and killed by that clause's check.
//
//   - jitter over the wrong value: the delay is max(nominal, retry-after)
//     with the jitter applied afterwards, so a retry-after is shortened
//     (ER-01.retry-after);
//   - a counter over the wrong set: the backoff exponent is the session's
//     retry count, not the call's attempt, so a second call's first retry
//     waits as long as the first call's last (ER-01.backoff);
//   - off-by-one ends: max_retries read as attempts (one retry fewer), and
//     session_max_retries compared with > (one retry more) (ER-02);
//   - a condition on the request instead of the outcome: the provider's
//     retryable hint decides, not the error's category (ER-03);
//   - keyed by the wrong field: the crash breaker trips at window_max when
//     both tiers are set, ignoring consecutive (ER-10).
func init() {
	register(
		Mutant{Name: "semantic/retry-after-jittered", Targets: []string{"ER-01"},
			Breaks: "the jitter is applied after the retry-after is taken into account, so a retry can come sooner than retry_after_ms",
			Apply:  withRetry(jitteredAfter{})},
		Mutant{Name: "semantic/backoff-exponent-by-session", Targets: []string{"ER-01", "ER-05"},
			Breaks: "the backoff exponent counts the session's retries, not the call's attempts: a later call's first retry waits base·factor^(session retries)",
			Apply:  withRetry(exponentBySession{})},
		Mutant{Name: "semantic/max-retries-as-attempts", Targets: []string{"ER-02"},
			Breaks: "max_retries is read as the number of attempts: a call is retried max_retries−1 times",
			Apply:  withRetry(retriesAsAttempts{})},
		Mutant{Name: "semantic/session-cap-one-over", Targets: []string{"ER-02"},
			Breaks: "the session retry cap is compared with >, so the session makes session_max_retries+1 retries",
			Apply:  withRetry(sessionCapOneOver{})},
		Mutant{Name: "semantic/retryable-hint-decides", Targets: []string{"ER-03"},
			Breaks: "whether a model error is retried follows the error's retryable flag, not its category: an auth_error marked retryable is retried, a rate_limited marked not retryable is not",
			Apply:  withRetry(hintDecides{})},
		Mutant{Name: "semantic/crash-breaker-window-max", Targets: []string{"ER-10"},
			Breaks: "the crash breaker trips at window_max whenever it is set, ignoring the consecutive threshold",
			Apply:  withTools(windowMaxTrips{})},
	)
}

type jitteredAfter struct{ retry.Backoff }

func (jitteredAfter) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	d := retry.Backoff{}.Decide(cfg, e, s)
	if d.Action != retry.Retry {
		return d
	}
	set := retry.Resolve(cfg)
	n := set.Nominal(s.Attempt)
	if e.RetryAfterMS != nil {
		n = max(n, time.Duration(*e.RetryAfterMS)*time.Millisecond)
	}
	// The largest jitter draw, so that the kill does not depend on the
	// draw: the delay is half the retry-after.
	d.Delay = retry.Backoff{Rand: func() float64 { return 0.999 }}.Delay(retry.Settings{Base: n, Factor: 1}, 1, nil)
	return d
}

type exponentBySession struct{ retry.Backoff }

func (exponentBySession) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	d := retry.Backoff{}.Decide(cfg, e, s)
	if d.Action == retry.Retry {
		d.Delay = retry.Backoff{}.Delay(retry.Resolve(cfg), s.SessionRetries+1, e.RetryAfterMS)
	}
	return d
}

type retriesAsAttempts struct{ retry.Backoff }

func (retriesAsAttempts) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	d := retry.Backoff{}.Decide(cfg, e, s)
	if d.Action == retry.Retry && s.Attempt >= retry.Resolve(cfg).MaxRetries {
		return retry.Decision{Action: retry.Fail}
	}
	return d
}

type sessionCapOneOver struct{ retry.Backoff }

func (sessionCapOneOver) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	set := retry.Resolve(cfg)
	if s.SessionRetries == set.SessionMaxRetries {
		s.SessionRetries-- // "reached" is not yet "over"
	}
	return retry.Backoff{}.Decide(cfg, e, s)
}

type hintDecides struct{ retry.Backoff }

func (hintDecides) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	if e.Category == wire.ModelErrContextLength {
		return retry.Backoff{}.Decide(cfg, e, s)
	}
	if !e.Retryable {
		return retry.Decision{Action: retry.Fail}
	}
	e.Category = wire.ModelErrRateLimited // the hint said retry: treat it as a retryable error
	return retry.Backoff{}.Decide(cfg, e, s)
}

type windowMaxTrips struct{ retry.StandardTools }

func (windowMaxTrips) Trips(crashes int, cb *wire.CircuitBreaker) bool {
	if cb != nil && cb.WindowMax > 0 {
		return crashes >= cb.WindowMax
	}
	return retry.StandardTools{}.Trips(crashes, cb)
}
