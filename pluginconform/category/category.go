package category

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentconform/conform/harness/report"
)

// Options are what `conform plugin` hands every category's engine. An
// engine reads the fields it uses and ignores the rest (AllowEffects,
// ProcessBacked and HookCases are the tool category's).
type Options struct {
	// Argv is the plugin's command line; Env its whole environment
	// (launch.BaseEnv and the user's additions).
	Argv []string
	Env  []string
	// Config is the JSON object handed to Configure (nil: none). Values of
	// sensitive attributes are watched for; a required sensitive attribute
	// it leaves out is filled with a random canary.
	Config map[string]any
	// AllowEffects is a scratch folder for a tool provider's resource
	// operations (empty: they do not run).
	AllowEffects string
	// ProcessBacked names a tool provider's operations that run a child
	// process.
	ProcessBacked []string
	// Cases is the number of generated cases per property; HookCases per
	// hook point and mode (0: each engine's default).
	Cases, HookCases int
	// Seed makes the generated cases reproducible (0: a random seed, which
	// the report records).
	Seed uint64
	// CallTimeout bounds one call; HookTimeout is the deadline set on each
	// hook dispatch; StartTimeout bounds the wait for the handshake (0:
	// each engine's default). Multiplier scales all three.
	CallTimeout, HookTimeout, StartTimeout time.Duration
	Multiplier                             float64
	// Progress, when set, gets one line per group of checks.
	Progress io.Writer
	// Now is the clock (nil: time.Now); Rand draws canary secrets (nil:
	// crypto/rand).
	Now  func() time.Time
	Rand io.Reader
}

// Stats are figures of a run, for people (not verdicts).
type Stats struct {
	// GeneratedCalls is how many calls ran generated inputs, and
	// GeneratedTime the time they took, shrinking included.
	GeneratedCalls int
	GeneratedTime  time.Duration
	Launches       int
	Seed           uint64
}

// LaunchError is a run that could not check the plugin at all: it never
// completed the handshake, does not serve its category's service, or
// rejected the configuration conform gave it. Run still returns a report,
// every requirement in error with the reason.
type LaunchError struct{ Reason string }

func (e *LaunchError) Error() string { return e.Reason }

// Category is one plugin category an engine checks.
type Category struct {
	// Name is the --category value and the go-plugin plugin-map key
	// ("tool", "model", "context", "memory").
	Name string
	// Profile is the spec profile of the category's rows (spec.LoadProfile).
	Profile string
	// Service is the full gRPC name of the service a plugin of this
	// category serves, e.g. "pluggableharness.model.v1.ModelService". It
	// must have a Describe method taking an empty request.
	Service string
	// Summary is one line for --help and errors.
	Summary string
	// Run checks the plugin and returns its report. A nil report with an
	// error means conform itself could not run; a *LaunchError comes with
	// a report saying why nothing could be checked.
	Run func(ctx context.Context, opt Options) (*report.Report, Stats, error)
}

var (
	mu  sync.Mutex
	reg = map[string]Category{}
)

// Register adds a category. It panics on a duplicate name or service, or a
// category missing a field: both are build mistakes.
func Register(c Category) {
	mu.Lock()
	defer mu.Unlock()
	if c.Name == "" || c.Profile == "" || c.Service == "" || c.Run == nil {
		panic(fmt.Sprintf("category.Register: %q lacks a name, profile, service or Run", c.Name))
	}
	for _, o := range reg {
		if o.Name == c.Name || o.Service == c.Service {
			panic(fmt.Sprintf("category.Register: %q registered twice", c.Name))
		}
	}
	reg[c.Name] = c
}

// Lookup returns the named category.
func Lookup(name string) (Category, bool) {
	mu.Lock()
	defer mu.Unlock()
	c, ok := reg[strings.ToLower(strings.TrimSpace(name))]
	return c, ok
}

// All returns every registered category, by name.
func All() []Category {
	mu.Lock()
	defer mu.Unlock()
	out := make([]Category, 0, len(reg))
	for _, c := range reg {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names returns the registered names, sorted.
func Names() []string {
	var out []string
	for _, c := range All() {
		out = append(out, c.Name)
	}
	return out
}

// ByService returns the categories whose service is among services.
func ByService(services []string) []Category {
	var out []Category
	for _, c := range All() {
		if slices.Contains(services, c.Service) {
			out = append(out, c)
		}
	}
	return out
}
