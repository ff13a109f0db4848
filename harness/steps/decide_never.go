package steps

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/spec/wire"
)

// PA-16 where nothing is pending (PROTOCOL.md §6.7): a frontend/decide
// that decides plan items and answers calls the session never had gets one
// rejected outcome per decision and per answer, in the order sent. The
// scenarios that send several decisions at once send them while the items
// are pending, so a kernel that answers only the first of a batch when
// nothing is pending passed.

// neverPending are the items and calls the second connection names.
var neverPending = struct{ items, calls []string }{[]string{"never-item-1", "never-item-2"}, []string{"never-call-1", "never-call-2"}}

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the model hangs on request 1 while a second frontend connection decides two plan items and answers two calls the session never had, and the harness then cancels the session$`), s.decideNeverPending)
		sc.Step(stepRE(`^each decision and answer about what was never pending was rejected as an invalid client event, one outcome each, in the order sent$`), s.proves(s.neverPendingRejected, "PA-16"))
	})
}

func (s *Scenario) decideNeverPending() error {
	return s.hangThen(1, func(k *driver.Kernel, cc wire.CallContext) {
		p := wire.FrontendDecideParams{SessionID: cc.SessionID, Connection: secondConnection, Decisions: []wire.PlanDecision{}}
		for i, id := range neverPending.items {
			p.Decisions = append(p.Decisions, wire.PlanDecision{PlanItemID: id, Decision: []string{wire.DecisionAllow, wire.DecisionDeny}[i%2]})
		}
		for _, id := range neverPending.calls {
			p.InteractiveResponses = append(p.InteractiveResponses, wire.InteractiveResponse{CallID: id, Response: "yes"})
		}
		<-s.World.SendDecideParams(cc, p)
		_ = k.Cancel(context.Background(), cc.SessionID)
	})
}

// hangThen holds model request n of the root session and runs f once, in
// its own goroutine, while it hangs.
func (s *Scenario) hangThen(n int, f func(k *driver.Kernel, cc wire.CallContext)) error {
	s.World.Model.On(n, fakes.Reply{Hang: true})
	s.onRun = append(s.onRun, func(k *driver.Kernel) {
		var once sync.Once
		s.World.Model.OnHang = func(session string) {
			if session != s.SessionID {
				return
			}
			once.Do(func() { go f(k, wire.CallContext{SessionID: session}) })
		}
	})
	return nil
}

func (s *Scenario) neverPendingRejected() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for _, r := range s.World.Frontend.Decisions(s.env.Scale(decideWait)) {
		if len(r.Params.Decisions) == 0 || r.Params.Decisions[0].PlanItemID != neverPending.items[0] {
			continue
		}
		if err := decideAnswered(r, "items that were never pending"); err != nil {
			return err
		}
		var items, calls []string
		for _, o := range r.Result.Results {
			if o.Accepted || o.Category != wire.FrontendErrInvalidClientEvent {
				return fmt.Errorf("the kernel answered the decision on %s, an item the session never had, with accepted %v and category %q; want a rejection with %s", o.PlanItemID, o.Accepted, o.Category, wire.FrontendErrInvalidClientEvent)
			}
			items = append(items, o.PlanItemID)
		}
		for _, o := range r.Result.InteractiveResults {
			if o.Accepted || o.Category != wire.FrontendErrInvalidClientEvent {
				return fmt.Errorf("the kernel answered the answer to %s, a call the session never had, with accepted %v and category %q; want a rejection with %s", o.CallID, o.Accepted, o.Category, wire.FrontendErrInvalidClientEvent)
			}
			calls = append(calls, o.CallID)
		}
		if !slices.Equal(items, neverPending.items) || !slices.Equal(calls, neverPending.calls) {
			return fmt.Errorf("frontend/decide (#%d) decided items %v and answered calls %v, none of them pending; the kernel's outcomes name items %v and calls %v: one outcome each, in the order sent, is due", r.Seq, neverPending.items, neverPending.calls, items, calls)
		}
		return nil
	}
	return notReached("the second frontend connection never sent its decisions: the kernel never asked the model (the harness sends them while model request 1 hangs)")
}
