package refkernel

import "github.com/agentconform/conform/refkernel/loop"

// ErrNotPaused is Continue's error for a running session that no soft limit
// has paused.
var ErrNotPaused = loop.ErrNotPaused

// Continue resumes a session paused by a soft limit (TA-09) with the user's
// message. A session that is not running is ErrUnknownSession; one that is
// running but not paused is ErrNotPaused.
func (k *Kernel) Continue(sessionID, message string) error {
	v, ok := k.paused.Load(sessionID)
	if !ok {
		return ErrUnknownSession
	}
	return v.(*loop.Session).Continue(message)
}
