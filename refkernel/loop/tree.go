package loop

import (
	"errors"
	"reflect"
	"slices"

	"github.com/agentconform/conform/refkernel/subagent"
	"github.com/agentconform/conform/spec/wire"
)

// ErrSessionRunning is a root session whose id is already live.
var ErrSessionRunning = subagent.ErrDuplicate

// joinTree places a new session in the live session tree (package
// subagent): a child comes with its node; a root joins the kernel's tree,
// or a private one when the session runs on its own.
func joinTree(s Setup, parts Parts) (*subagent.Node, error) {
	if s.Node != nil {
		return s.Node, nil
	}
	if err := subagent.Validate(s.Params.Config); err != nil {
		return nil, &ConfigError{Reason: err.Error()}
	}
	t := s.Tree
	if t == nil {
		t = subagent.NewTree(parts.Subagents)
	}
	n, err := t.Root(s.Params.SessionID, s.Params.Config)
	if errors.Is(err, subagent.ErrDuplicate) {
		return nil, ErrSessionRunning
	}
	return n, err
}

// transcript is the session's history with its final message, which a
// done turn does not append.
func (s *Session) transcript() []wire.Message {
	out := slices.Clone(s.history)
	if s.final != nil && (len(out) == 0 || !reflect.DeepEqual(out[len(out)-1], *s.final)) {
		out = append(out, *s.final)
	}
	return out
}

// Discard takes a session that will not run out of the live tree.
func (s *Session) Discard() { s.node.End(nil) }

// treeCost is what the session and all its descendants have spent: the
// amount its cost bound and its result count (TA-07, SA-11). The session's
// own total is costUSD.
func (s *Session) treeCost() float64 { return s.node.Spent() }
