package mutants

import (
	"slices"
	"strings"
	"sync"

	"github.com/agentconform/conform/refkernel/cost"
	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// Semantic mutants of per-session clauses (issue 29, the clause map's
// gaps): kernels that get a clause right in the root session, where every
// scenario used to check it, and wrong in a child or in the middle of a
// tree (semantic_cancel_test.go, semantic_retry_test.go and
// semantic_limits_test.go hold the others). Each passed the whole suite
// until the tree side of its clause was checked, and is killed by that
// check alone.
//
// Values over the wrong set: a session's running total (session_total_usd)
// sums its subtree, the way a loop that reports its node's rolled-up spend
// does (TA-06.session-total).
func init() {
	register(Mutant{Name: "semantic/session-total-of-subtree", Targets: []string{"TA-06"},
		Breaks: "a session's cost reports carry the running total of its whole subtree as session_total_usd, not its own",
		Apply: func(p loop.Parts) loop.Parts {
			p.Ledger = &subtreeTotals{sum: map[string]float64{}}
			return p
		}})
}

// isChild reads the reference's session ids: a child is named parent/cN.
func isChild(id string) bool { return strings.Contains(id, "/") }

// overStep replaces one step of the turn by f around it.
func overStep(p loop.Parts, name string, f func(t *loop.Turn, run func(*loop.Turn) error) error) loop.Parts {
	steps := slices.Clone(p.Steps)
	i := slices.IndexFunc(steps, func(s loop.Step) bool { return s.Name == name })
	run := steps[i].Run
	steps[i].Run = func(t *loop.Turn) error { return f(t, run) }
	p.Steps = steps
	return p
}

type subtreeTotals struct {
	mu  sync.Mutex
	sum map[string]float64 // session → what it and its descendants spent
}

func (l *subtreeTotals) Report(n host.Notifier, c wire.CostUsage) {
	l.mu.Lock()
	for id := c.SessionID; ; {
		l.sum[id] += c.CostUSD
		j := strings.LastIndex(id, "/")
		if j < 0 {
			break
		}
		id = id[:j]
	}
	c.SessionTotalUSD = l.sum[c.SessionID]
	l.mu.Unlock()
	cost.Immediate{}.Report(n, c)
}
