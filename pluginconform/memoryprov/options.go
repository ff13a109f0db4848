package memoryprov

import (
	"errors"
	"io"
	"time"

	"github.com/agentconform/conform/pluginconform/category"
)

// Options configure a run.
type Options struct {
	// Argv is the plugin's command line; Env its whole environment.
	Argv, Env []string
	// Config is the JSON object handed to Configure (nil: none).
	Config map[string]any
	// Cases is the number of generated write cases (default 40).
	Cases int
	// Seed makes the generated cases reproducible (0: a random one).
	Seed uint64
	// CallTimeout bounds one call (default 10 s); StartTimeout the
	// handshake (default 10 s); Multiplier scales both (default 1).
	CallTimeout, StartTimeout time.Duration
	Multiplier                float64
	// Progress, when set, gets one line per group of checks.
	Progress io.Writer
	// Now is the clock; Rand draws the canary secret.
	Now  func() time.Time
	Rand io.Reader
}

func (o *Options) defaults() error {
	if len(o.Argv) == 0 {
		return errors.New("no plugin command")
	}
	if o.Cases <= 0 {
		o.Cases = 40
	}
	if o.Multiplier < 1 {
		o.Multiplier = 1
	}
	scale := func(d *time.Duration, def time.Duration) {
		if *d <= 0 {
			*d = def
		}
		*d = time.Duration(float64(*d) * o.Multiplier)
	}
	scale(&o.CallTimeout, 10*time.Second)
	scale(&o.StartTimeout, 10*time.Second)
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}

// Stats are figures of a run, for people (not verdicts).
type Stats = category.Stats

// FromCategory is this engine's Options for a category run's.
func FromCategory(o category.Options) Options {
	return Options{
		Argv: o.Argv, Env: o.Env, Config: o.Config, Cases: o.Cases, Seed: o.Seed,
		CallTimeout: o.CallTimeout, StartTimeout: o.StartTimeout, Multiplier: o.Multiplier,
		Progress: o.Progress, Now: o.Now, Rand: o.Rand,
	}
}
