package pluginconform

import (
	"errors"
	"io"
	"time"
)

// Options configure a run.
type Options struct {
	// Argv is the plugin's command line.
	Argv []string
	// Env is the plugin's environment (launch.BaseEnv and the user's
	// additions).
	Env []string
	// Config is the JSON object handed to Configure (nil: none). Values of
	// sensitive attributes are watched for (PL-24); a required sensitive
	// attribute it leaves out is filled with a random canary.
	Config map[string]any
	// AllowEffects is a scratch folder: resource operations run, each call
	// with it as its working directory. Empty: they do not run.
	AllowEffects string
	// ProcessBacked names the operations that run a child process; they
	// must report exit_status (PL-16) and no other operation may.
	ProcessBacked []string
	// Cases is the number of generated cases per property (default 100);
	// HookCases per hook point and mode (default 25).
	Cases, HookCases int
	// Seed makes the generated cases reproducible (0: a random seed, which
	// the report records).
	Seed uint64
	// CallTimeout bounds one call (default 10 s); a call past it has hung.
	CallTimeout time.Duration
	// HookTimeout is the deadline set on each DispatchHook (default 2 s).
	HookTimeout time.Duration
	// StartTimeout bounds the wait for the handshake (default 10 s).
	StartTimeout time.Duration
	// Multiplier scales every duration above (default 1).
	Multiplier float64
	// Progress, when set, gets one line per group of checks.
	Progress io.Writer
	// Now is the clock (default time.Now); Rand draws the canary secret.
	Now  func() time.Time
	Rand io.Reader
}

func (o *Options) defaults() error {
	if len(o.Argv) == 0 {
		return errors.New("no plugin command")
	}
	if o.Cases <= 0 {
		o.Cases = 100
	}
	if o.HookCases <= 0 {
		o.HookCases = 25
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
	scale(&o.HookTimeout, 2*time.Second)
	scale(&o.StartTimeout, 10*time.Second)
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}
