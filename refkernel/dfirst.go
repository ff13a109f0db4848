package refkernel

import (
	"errors"
	"sync"

	"github.com/agentconform/conform/refkernel/dfirst"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// ErrNotDeterministicFirst refuses a memory write to a session that does
// not run the deterministic-first profile.
var ErrNotDeterministicFirst = errors.New("the session does not run the deterministic-first profile")

// dfSessions is the kernel's side of the deterministic-first profile
// (PROTOCOL.md §17): the runs in progress, which running tools write memory
// to, and what every ended session left to its next run, so that a
// session/run naming it again re-opens it (§17.8). The zero value is ready.
type dfSessions struct {
	mu     sync.Mutex
	live   map[string]*loop.Session
	states map[string]*dfirst.State
}

// prior is what the session's earlier runs left, nil for a new session.
func (d *dfSessions) prior(id string) *dfirst.State {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.states[id]
}

func (d *dfSessions) start(id string, s *loop.Session) {
	if s.DF() == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.live == nil {
		d.live = map[string]*loop.Session{}
	}
	d.live[id] = s
}

// end keeps the run's state for the session's next run.
func (d *dfSessions) end(id string, s *loop.Session) {
	st := s.DFState()
	if st == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.live, id)
	if d.states == nil {
		d.states = map[string]*dfirst.State{}
	}
	d.states[id] = st
}

// WriteMemory commits a running tool's memory write (memory/write). The
// write is applied before WriteMemory returns and is never rolled back
// (DF-08). Errors: ErrUnknownSession, ErrNotDeterministicFirst, and
// dfirst.ErrNotInFlight for a call_id that is not running.
func (k *Kernel) WriteMemory(p wire.MemoryWriteParams) error {
	k.df.mu.Lock()
	s, ok := k.df.live[p.SessionID]
	_, ended := k.df.states[p.SessionID]
	k.df.mu.Unlock()
	switch {
	case ok:
		return s.DF().Write(p.CallID, p.Values)
	case ended:
		return dfirst.ErrNotInFlight // every run of the session has ended: no call is in flight
	}
	k.mu.Lock()
	_, running := k.running[p.SessionID]
	known := running || k.ended[p.SessionID]
	k.mu.Unlock()
	if known {
		return ErrNotDeterministicFirst
	}
	return ErrUnknownSession
}
