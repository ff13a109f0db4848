package refkernel

import (
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// Decide serves frontend/decide: another frontend connection of a running
// root session decides plan items of it (PA-16). Each decision's outcome
// comes back in order: accepted when it decided a pending item,
// INVALID_CLIENT_EVENT when the item was already decided or is not
// pending. Its interactive responses answer waiting interactive calls the
// same way, first answer wins. A session that is not running is
// ErrUnknownSession.
func (k *Kernel) Decide(p wire.FrontendDecideParams) (wire.FrontendDecideResult, error) {
	v, ok := k.paused.Load(p.SessionID) // every running root session (soft.go)
	if !ok {
		return wire.FrontendDecideResult{}, ErrUnknownSession
	}
	s := v.(*loop.Session)
	res := wire.FrontendDecideResult{Results: s.Decide(p.Connection, p.Decisions)}
	res.InteractiveResults = s.AnswerInteractive(p.Connection, p.InteractiveResponses)
	return res, nil
}
