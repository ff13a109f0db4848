package refkernel

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/agentconform/conform/refkernel/clock"
	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/refkernel/ids"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/plangate"
	"github.com/agentconform/conform/refkernel/subagent"
	"github.com/agentconform/conform/spec/wire"
)

// Host is the kernel's view of the harness.
type Host = host.Host

// Parts are the swappable pieces of the kernel; see loop.Parts.
type Parts = loop.Parts

// ConfigError is a session config refused before the session started; the
// wire server answers it with wire.CodeConfigRejected.
type ConfigError = loop.ConfigError

// DefaultParts returns the reference parts.
func DefaultParts() Parts { return loop.DefaultParts() }

// Errors of Run and Cancel besides ConfigError.
var (
	ErrUnknownSession = errors.New("unknown session")
	ErrSessionRunning = errors.New("a session with this id is already running")
)

// Kernel runs sessions. It is safe for concurrent use: several sessions may
// run at once, each on its own Host or on a shared one.
type Kernel struct {
	parts          Parts
	clock          clock.Clock
	ids            ids.Generator
	previewTimeout time.Duration
	clockDelay     time.Duration
	store          plangate.Store
	tree           *subagent.Tree // every live session, roots and children (spawn.go)
	declare        func(*wire.InitializeResult)

	mu      sync.Mutex
	running map[string]context.CancelFunc
	ended   map[string]bool // cancelling these is a no-op, not an error
	paused  sync.Map        // session id → *loop.Session, for Continue (soft.go)
	df      dfSessions      // deterministic-first runs and states (dfirst.go)
}

// Option tunes a Kernel.
type Option func(*Kernel)

// WithClock injects the clock (default: the system clock).
func WithClock(c clock.Clock) Option { return func(k *Kernel) { k.clock = c } }

// WithIDs injects the generator of turn and plan item ids (default: random).
func WithIDs(g ids.Generator) Option { return func(k *Kernel) { k.ids = g } }

// WithPreviewTimeout sets the deadline of a tool/preview call.
func WithPreviewTimeout(d time.Duration) Option { return func(k *Kernel) { k.previewTimeout = d } }

// WithDeclaration edits the initialize answer: a legal variant of the
// kernel declares another reading of an open point, or leaves a capability
// out, exactly as a third-party kernel would. Several apply in order.
func WithDeclaration(f func(*wire.InitializeResult)) Option {
	return func(k *Kernel) {
		prev := k.declare
		k.declare = func(info *wire.InitializeResult) {
			if prev != nil {
				prev(info)
			}
			f(info)
		}
	}
}

// WithClockStartDelay starts each root session's wall clock this long after
// the session starts: a correct kernel that times sessions from a later mark
// for the legal variants.
func WithClockStartDelay(d time.Duration) Option { return func(k *Kernel) { k.clockDelay = d } }

// WithPolicyStore replaces the store of ALWAYS-scoped decisions (default:
// one in memory for the kernel's lifetime).
func WithPolicyStore(s plangate.Store) Option { return func(k *Kernel) { k.store = s } }

// New makes a kernel from its parts; unset parts are the reference ones.
func New(p Parts, opts ...Option) *Kernel {
	k := &Kernel{
		parts:          p.WithDefaults(),
		clock:          clock.System{},
		ids:            ids.Random(),
		previewTimeout: loop.DefaultPreviewTimeout,
		store:          &plangate.MemoryStore{},
		running:        map[string]context.CancelFunc{},
		ended:          map[string]bool{},
	}
	k.tree = subagent.NewTree(k.parts.Subagents)
	for _, o := range opts {
		o(k)
	}
	return k
}

// Run runs one root session to its end. A config the kernel refuses is a
// *ConfigError and no session starts; every session that starts ends with
// a result, whatever its status.
func (k *Kernel) Run(ctx context.Context, h Host, p wire.RunParams) (wire.RunSessionResult, error) {
	s, err := loop.NewSession(loop.Setup{
		Parts:           k.parts,
		Host:            h,
		Clock:           k.clock,
		IDs:             k.ids,
		PreviewTimeout:  k.previewTimeout,
		ClockStartDelay: k.clockDelay,
		Store:           k.store,
		Params:          p,
		Tree:            k.tree,
		DFPrior:         k.df.prior(p.SessionID), // a re-opened session (dfirst.go)
	})
	if errors.Is(err, loop.ErrSessionRunning) {
		return wire.RunSessionResult{}, ErrSessionRunning
	}
	if err != nil {
		return wire.RunSessionResult{}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := k.register(p.SessionID, cancel); err != nil {
		s.Discard()
		return wire.RunSessionResult{}, err
	}
	defer k.unregister(p.SessionID)
	k.paused.Store(p.SessionID, s)
	defer k.paused.Delete(p.SessionID)
	k.df.start(p.SessionID, s)
	defer k.df.end(p.SessionID, s)
	return s.Run(ctx), nil
}

// Cancel cancels a running session; its Run then returns with status
// cancelled after session-end has fired. Cancelling a session that has
// already ended does nothing; an id the kernel never ran is
// ErrUnknownSession.
func (k *Kernel) Cancel(sessionID string) error {
	if live, ended := k.tree.Cancel(sessionID); live || ended { // children too, and their subtrees (SA-08)
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if cancel, ok := k.running[sessionID]; ok {
		cancel()
		return nil
	}
	if k.ended[sessionID] {
		return nil
	}
	return ErrUnknownSession
}

func (k *Kernel) register(id string, cancel context.CancelFunc) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.running[id]; ok {
		return ErrSessionRunning
	}
	k.running[id] = cancel
	return nil
}

func (k *Kernel) unregister(id string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.running, id)
	k.ended[id] = true
}
