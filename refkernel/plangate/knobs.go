package plangate

import (
	"context"

	"github.com/agentconform/conform/spec/wire"
)

// Optional parts of Answers. The reference answers implement neither; a
// test kernel (a mutant the suite must catch, or a legal variant it must
// not blame) implements one to change a single rule of remembered
// decisions without copying the gate.

// DecisionLifetimer lets how long a decision holds depend on the decision
// as well as on its scope, e.g. a kernel that remembers a SESSION-scoped
// allow but not a deny.
type DecisionLifetimer interface {
	// LifetimeOf is Lifetime for a decision of wire.PolicyAllow or
	// wire.PolicyDeny.
	LifetimeOf(decision, scope string, persist bool) Lifetime
}

// MemoryKeyer says which later items a SESSION- or ALWAYS-scoped verdict
// covers in the session; the reference covers the same provider and tool
// (PA-18).
type MemoryKeyer interface {
	MemoryKey(provider, tool string) [2]string
}

func (g *Gate) lifetime(decision, scope string) Lifetime {
	if l, ok := g.cfg.Answers.(DecisionLifetimer); ok {
		return l.LifetimeOf(decision, scope, g.cfg.PersistAlways)
	}
	return g.cfg.Answers.Lifetime(scope, g.cfg.PersistAlways)
}

func (g *Gate) memoryKey(provider, tool string) [2]string {
	if k, ok := g.cfg.Answers.(MemoryKeyer); ok {
		return k.MemoryKey(provider, tool)
	}
	return [2]string{provider, tool}
}

// RefusalWaiter is A-37's other reading: after the kernel refuses a
// decision (an ALWAYS it cannot persist, an invalid corrected input) it
// does not ask again but keeps the item pending until a usable decision
// comes from any frontend connection (frontend/decide) or the session
// ends. The reference asks again.
type RefusalWaiter interface {
	WaitAfterRefusal() bool
}

func (g *Gate) waitsAfterRefusal() bool {
	w, ok := g.cfg.Answers.(RefusalWaiter)
	return ok && w.WaitAfterRefusal()
}

// signalLocked wakes awaitDecided; dmu is held.
func (g *Gate) signalLocked() {
	if g.decided != nil {
		close(g.decided)
		g.decided = nil
	}
}

// awaitDecided blocks until no item of items[idx] is pending, or ctx ends.
func (g *Gate) awaitDecided(ctx context.Context, items []wire.PlanItem, idx []int) error {
	for {
		g.dmu.Lock()
		left := false
		for _, i := range idx {
			if t := g.items[items[i].ID]; t != nil && !t.decided {
				left = true
			}
		}
		if !left {
			g.dmu.Unlock()
			return nil
		}
		if g.decided == nil {
			g.decided = make(chan struct{})
		}
		ch := g.decided
		g.dmu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
