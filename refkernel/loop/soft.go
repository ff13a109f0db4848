package loop

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/agentconform/conform/refkernel/bounds"
	"github.com/agentconform/conform/refkernel/doomloop"
	"github.com/agentconform/conform/spec/wire"
)

// ErrNotPaused is Continue's answer for a session no soft limit has paused.
var ErrNotPaused = errors.New("the session is not paused by a soft limit")

// limitState is the bounds area's share of a session: the soft-limit pause
// and allowance (TA-09), the weighted-token sum (TA-05) and the window of
// the doom-loop model check (TA-13). Only the session's goroutine touches
// it, except the pause, which Continue reaches from the server.
type limitState struct {
	allowance  bounds.Allowance
	weighted   float64
	recent     []doomloop.Call // the model check's window, newest last
	sinceCheck int             // relevant calls since the last model check

	mu     sync.Mutex
	resume chan string // non-nil while paused
}

// usage is what the bounds compare at step 17, counted from the last
// continuation.
func (s *Session) usage() bounds.State {
	return s.limits.allowance.Since(bounds.State{
		Turns: s.turns, CostUSD: s.treeCost(), WeightedTokens: s.limits.weighted,
		Elapsed: s.clock.Now().Sub(s.started),
	})
}

// SoftNotice is the kernel-authored message a soft limit injects into the
// history when it pauses the session.
func SoftNotice(f bounds.Fired) string {
	return fmt.Sprintf("[kernel] This session reached its soft limit (%s) and is paused. "+
		"It continues only when the user explicitly asks it to.", f.Bound)
}

// pause is the soft limit-reached path (TA-09): report the limit, inject the
// notice, and wait for the user's continuation. The continuation becomes a
// user message and the bound grants a fresh allowance from now on. The
// session is not ended: no final-answer turn runs. Only cancellation ends a
// paused session.
func (s *Session) pause(ctx context.Context, last *Turn, f bounds.Fired) error {
	resume := make(chan string, 1)
	s.limits.mu.Lock()
	s.limits.resume = resume
	s.limits.mu.Unlock()
	defer func() {
		s.limits.mu.Lock()
		s.limits.resume = nil
		s.limits.mu.Unlock()
	}()
	s.history = append(s.history, textMessage("system", SoftNotice(f)))
	s.emit(last.ID, wire.EventLimitReached, map[string]any{"bound": f.Bound, "status": f.Status, "soft": true})
	select {
	case msg := <-resume:
		s.history = append(s.history, textMessage("user", msg))
		s.limits.allowance = bounds.Allowance{Turns: s.turns, CostUSD: s.treeCost(), WeightedTokens: s.limits.weighted}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Continue resumes a session paused by a soft limit with the user's
// message; ErrNotPaused when no soft limit holds it.
func (s *Session) Continue(message string) error {
	s.limits.mu.Lock()
	defer s.limits.mu.Unlock()
	if s.limits.resume == nil {
		return ErrNotPaused
	}
	select {
	case s.limits.resume <- message:
		s.limits.resume = nil // a second continue before the loop wakes is refused
		return nil
	default:
		return ErrNotPaused
	}
}

// ID is the session's id.
func (s *Session) ID() string { return s.id }

// Emit sends an event of the turn's session on behalf of the kernel.
func (t *Turn) Emit(kind string, payload map[string]any) {
	t.Session.emit(t.ID, kind, payload)
}
