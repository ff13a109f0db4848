package retry

import (
	"errors"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

// State is the retry history the loop keeps.
type State struct {
	Attempt        int // the attempt that just failed, counting from 1
	SessionRetries int // retries already spent in this session
}

// Decision says whether to retry and after how long.
type Decision struct {
	Retry bool
	Delay time.Duration
}

// Policy is the swappable retry part.
type Policy interface {
	Decide(cfg *wire.Retry, err wire.ModelError, s State) Decision
}

// None never retries.
type None struct{}

// Decide implements Policy.
func (None) Decide(*wire.Retry, wire.ModelError, State) Decision { return Decision{} }

// Validate enforces that a retry block, once written, sets all three base
// settings (ER-05).
func Validate(cfg *wire.Retry) error {
	if cfg == nil {
		return nil
	}
	if cfg.BaseDelayMS == nil || cfg.BackoffFactor == nil || cfg.MaxRetries == nil {
		return errors.New("retry: base_delay_ms, backoff_factor and max_retries must all be set")
	}
	return nil
}
