package mutants

import (
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/plangate"
	"github.com/agentconform/conform/spec/wire"
)

// A connection answering the same waiting interactive call twice (PA-16,
// PROTOCOL.md §6.7: only the first answer to a call counts). Loops that
// keep the answers to a waiting call keyed by call and connection treat a
// second answer from the same connection, while the call still waits, as
// that connection revising its own answer rather than as a late one:
//
//   - the revision wins: the later answer replaces the first as the
//     call's result and is reported accepted;
//   - the revision is acknowledged: it is reported accepted and dropped,
//     with no INVALID_CLIENT_EVENT and no frontend_error, so the client
//     believes its second answer counted.
//
// An answer from another connection, the primary's included, is late and
// rejected as in the reference, and so is any answer once the call's
// result is final: every PA-16 scenario passed until the one of commit
// 1488648, where one frontend/decide answers the same call twice.
func init() {
	register(
		Mutant{Name: "semantic/s18-own-interactive-answer-revised", Targets: []string{"PA-16"},
			Breaks: "a connection's second answer to an interactive call that still waits replaces its first as the result and is reported accepted (another connection's late answer is rejected)",
			Apply:  withArbiter(ownAnswer(plangate.LateReplace))},
		Mutant{Name: "semantic/s18-own-interactive-answer-acknowledged", Targets: []string{"PA-16"},
			Breaks: "a connection's second answer to an interactive call that still waits is reported accepted and dropped: no INVALID_CLIENT_EVENT, no frontend_error",
			Apply:  withArbiter(ownAnswer(plangate.LateIgnore))},
	)
}

func withArbiter(a plangate.Arbiter) func(loop.Parts) loop.Parts {
	return func(p loop.Parts) loop.Parts {
		p.Arbiter = a
		return p
	}
}

// ownAnswer settles a connection's repeated answer to a waiting
// interactive call its way; everything else late is rejected.
type ownAnswer plangate.LateAction

func (a ownAnswer) Late(l plangate.Late) plangate.LateAction {
	if l.Interactive && l.Open && l.Connection == l.First && l.Connection != wire.ConnectionPrimary {
		return plangate.LateAction(a)
	}
	return plangate.LateReject
}
