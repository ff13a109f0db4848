package retry

import (
	"errors"
	"math"
	"math/rand/v2"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

// Shipped defaults (ER-05). They apply whenever the session config has no
// retry block.
const (
	DefaultBaseDelay     = 500 * time.Millisecond
	DefaultBackoffFactor = 2.0
	DefaultMaxRetries    = 5
	// DefaultSessionMaxRetries is the per-session retry ceiling when the
	// config sets none. The spec requires a ceiling but names no value
	// declared as the reading "retry.session_max_retries.default".
	DefaultSessionMaxRetries = 20
	// MaxReductions is how many context-reduction passes one model call
	// gets after context_length_exceeded before the turn fails (ER-06).
	MaxReductions = 2
)

// JitterMinRatio is the lower bound of the reference jitter as a fraction
// of the nominal delay; declared as the reading "retry.jitter_min_ratio".
//
// Reading of A-26 (retry arithmetic), this kernel's choice:
//   - max_retries counts retries after the first attempt, so a call is
//     attempted at most max_retries+1 times (as PROTOCOL.md's "Retries per
//     call" says); session_max_retries counts retries across the session.
//   - retry k (from 1) has the nominal delay base·factor^(k−1).
//   - "equal jitter": the delay is drawn uniformly from [nominal/2, nominal],
//     so it is never below JitterMinRatio·nominal and never above nominal.
//   - a retry-after from the ModelError larger than that delay wins, and is
//     never shortened by jitter.
//   - after the last permitted retry the call fails and the session ends
//     failed; no fallback model is used (the reference routes to none).
const JitterMinRatio = 0.5

// maxDelay keeps base·factor^k from overflowing.
const maxDelay = time.Hour

// Settings are the effective retry settings of a session.
type Settings struct {
	Base              time.Duration
	Factor            float64
	MaxRetries        int
	SessionMaxRetries int
}

// Resolve fills unset settings with the shipped defaults. A retry block
// missing one of its three base settings never gets here: Validate refuses
// it at config load.
func Resolve(cfg *wire.Retry) Settings {
	s := Settings{Base: DefaultBaseDelay, Factor: DefaultBackoffFactor, MaxRetries: DefaultMaxRetries, SessionMaxRetries: DefaultSessionMaxRetries}
	if cfg == nil {
		return s
	}
	if cfg.BaseDelayMS != nil {
		s.Base = time.Duration(*cfg.BaseDelayMS) * time.Millisecond
	}
	if cfg.BackoffFactor != nil {
		s.Factor = *cfg.BackoffFactor
	}
	if cfg.MaxRetries != nil {
		s.MaxRetries = *cfg.MaxRetries
	}
	if cfg.SessionMaxRetries != nil {
		s.SessionMaxRetries = *cfg.SessionMaxRetries
	}
	return s
}

// Nominal is the delay before retry k (from 1), before jitter.
func (s Settings) Nominal(k int) time.Duration {
	if k < 1 {
		k = 1
	}
	d := float64(s.Base) * math.Pow(s.Factor, float64(k-1))
	if math.IsNaN(d) || d > float64(maxDelay) {
		return maxDelay
	}
	if d < 0 {
		return 0
	}
	return time.Duration(d)
}

// State is the retry history the loop keeps.
type State struct {
	Attempt        int // the attempt of this request that just failed, from 1
	SessionRetries int // backoff retries already spent in this session
	Reductions     int // context-reduction passes already made for this call
	// Fallbacks are the other models the config lists (ER-07).
	Fallbacks []string
}

// Action is what the loop does after a model error.
type Action int

// Actions.
const (
	// Fail ends the call with the error: post-model-response sees it and
	// the session ends failed.
	Fail Action = iota
	// Retry sends the same request again after Delay.
	Retry
	// Reduce runs a context-assemble pass with reduce: true and sends the
	// rebuilt request, or fails if nothing changed.
	Reduce
)

// Decision says what to do after a model error.
type Decision struct {
	Action Action
	Delay  time.Duration
	// Model, when set on a retry, routes it to another model. The
	// reference never sets it (ER-07).
	Model string
}

// Policy is the swappable model-error part.
type Policy interface {
	// Validate checks the config's retry block at config load (ER-05).
	Validate(cfg *wire.Retry) error
	// Classify is the kernel's reading of a reply's outcome: the stop
	// reason and error it reports onwards (to post-model-response and
	// events). err is nil for a reply without an error.
	Classify(stop string, err *wire.ModelError) (string, *wire.ModelError)
	// Decide chooses the reaction to one model error.
	Decide(cfg *wire.Retry, err wire.ModelError, s State) Decision
}

// Backoff is the reference policy: exponential backoff with equal jitter
// for rate_limited and overloaded, a reduction pass for
// context_length_exceeded, and no retry for anything else (ER-03).
type Backoff struct {
	// Rand returns a number in [0, 1); nil means math/rand/v2.
	Rand func() float64
}

// Validate implements Policy.
func (Backoff) Validate(cfg *wire.Retry) error { return Validate(cfg) }

// Classify implements Policy: provider categories are passed on as they
// came, so content_filtered stays distinct from unknown (ER-08).
func (Backoff) Classify(stop string, err *wire.ModelError) (string, *wire.ModelError) {
	return stop, err
}

// Decide implements Policy.
func (b Backoff) Decide(cfg *wire.Retry, e wire.ModelError, s State) Decision {
	switch e.Category {
	case wire.ModelErrContextLength:
		// Never retried as it is (ER-03): shrink first (ER-06).
		if s.Reductions < MaxReductions {
			return Decision{Action: Reduce}
		}
		return Decision{Action: Fail}
	case wire.ModelErrRateLimited, wire.ModelErrOverloaded:
	default:
		// auth_error and invalid_request never (ER-03, ER-07);
		// content_filtered and unknown not by default.
		return Decision{Action: Fail}
	}
	set := Resolve(cfg)
	if s.Attempt > set.MaxRetries || s.SessionRetries >= set.SessionMaxRetries {
		return Decision{Action: Fail}
	}
	return Decision{Action: Retry, Delay: b.Delay(set, s.Attempt, e.RetryAfterMS)}
}

// Delay is the wait before retry k: the nominal delay with equal jitter,
// raised to the retry-after when that is longer.
func (b Backoff) Delay(set Settings, k int, retryAfterMS *int64) time.Duration {
	n := set.Nominal(k)
	r := rand.Float64
	if b.Rand != nil {
		r = b.Rand
	}
	d := n - time.Duration((1-JitterMinRatio)*float64(n)*r())
	if retryAfterMS != nil {
		if ra := time.Duration(*retryAfterMS) * time.Millisecond; ra > d {
			d = ra
		}
	}
	return d
}

// Validate enforces that a retry block, once written, sets all three base
// settings (ER-05).
func Validate(cfg *wire.Retry) error {
	if cfg == nil {
		return nil
	}
	if cfg.BaseDelayMS == nil || cfg.BackoffFactor == nil || cfg.MaxRetries == nil {
		return errors.New("retry: a retry block must set base_delay_ms, backoff_factor and max_retries together")
	}
	return nil
}
