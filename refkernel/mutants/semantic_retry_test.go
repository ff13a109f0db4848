package mutants

import (
	"sync"

	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/retry"
	"github.com/agentconform/conform/spec/wire"
)

// State shared across sessions (issue 29, ER-01.backoff, tree side): the
// retry attempt count is kept on the model client, shared by every
// session that uses it and reset on a success. One session's calls retry
// as they should; two children failing at the same moment use up each
// other's retries.
func init() {
	register(Mutant{Name: "semantic/retry-attempts-shared", Targets: []string{"ER-01"},
		Breaks: "the retry attempt count is kept per model for the whole kernel and reset on a success, so sessions failing at once use up each other's retries",
		// One count per kernel, that is per scenario: shared by the
		// sessions of one tree, not with other scenarios' trees.
		PerKernel: true,
		Apply: func(p loop.Parts) loop.Parts {
			p.Retry = &sharedAttempts{}
			return p
		}})
}

type sharedAttempts struct {
	retry.Backoff
	mu sync.Mutex
	n  int // failures since the last success, whichever session had them
}

func (p *sharedAttempts) Classify(stop string, err *wire.ModelError) (string, *wire.ModelError) {
	if err == nil {
		p.mu.Lock()
		p.n = 0
		p.mu.Unlock()
	}
	return p.Backoff.Classify(stop, err)
}

func (p *sharedAttempts) Decide(cfg *wire.Retry, e wire.ModelError, s retry.State) retry.Decision {
	p.mu.Lock()
	p.n++
	s.Attempt = p.n
	p.mu.Unlock()
	return p.Backoff.Decide(cfg, e, s)
}
