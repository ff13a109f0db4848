package mutants

import (
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/retry"
	"github.com/agentconform/conform/spec/wire"
)

// Counted over the wrong set (issue 29, ER-02.per-call, under the cap): the
// per-call cap counts the session's retries, not the call's, so a later
// call that stays under its own cap is not retried. A single failing call
// is capped as it should be.
func init() {
	register(Mutant{Name: "semantic/call-cap-counts-session", Targets: []string{"ER-02"},
		Breaks: "max_retries is compared with the session's retries so far instead of the call's",
		Apply: func(p loop.Parts) loop.Parts {
			p.Retry = sessionCallCap{}
			return p
		}})
}

type sessionCallCap struct{ retry.Backoff }

func (sessionCallCap) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	s.Attempt = max(s.Attempt, s.SessionRetries+1)
	return retry.Backoff{}.Decide(cfg, e, s)
}
