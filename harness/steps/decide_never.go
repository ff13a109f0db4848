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

// neverPending are the frontend/decide batches the second connection
// sends, in order: decisions and answers together, decisions alone (no
// interactive_responses), answers alone (decisions null, which the schema
// allows). Each gets outcomes for what it sent and nothing else.
var neverPending = []struct{ items, calls []string }{
	{[]string{"never-item-1", "never-item-2"}, []string{"never-call-1", "never-call-2"}},
	{[]string{"never-item-3"}, nil},
	{nil, []string{"never-call-3"}},
}

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the model hangs on request 1 while a second frontend connection decides two plan items and answers two calls the session never had, then decides one more alone and answers one more alone, and the harness then cancels the session$`), s.decideNeverPending)
		sc.Step(stepRE(`^each decision and answer about what was never pending was rejected as an invalid client event, one outcome each, in the order sent$`), s.proves(s.neverPendingRejected, "PA-16"))
	})
}

func (s *Scenario) decideNeverPending() error {
	return s.hangThen(1, func(k *driver.Kernel, cc wire.CallContext) {
		for _, b := range neverPending {
			p := wire.FrontendDecideParams{SessionID: cc.SessionID, Connection: secondConnection}
			for i, id := range b.items {
				p.Decisions = append(p.Decisions, wire.PlanDecision{PlanItemID: id, Decision: []string{wire.DecisionAllow, wire.DecisionDeny}[i%2]})
			}
			for _, id := range b.calls {
				p.InteractiveResponses = append(p.InteractiveResponses, wire.InteractiveResponse{CallID: id, Response: "yes"})
			}
			<-s.World.SendDecideParams(cc, p)
		}
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
	sent := s.World.Frontend.Decisions(s.env.Scale(decideWait))
	for _, b := range neverPending {
		i := slices.IndexFunc(sent, func(r fakes.SentDecide) bool {
			var ids []string
			for _, d := range r.Params.Decisions {
				ids = append(ids, d.PlanItemID)
			}
			for _, a := range r.Params.InteractiveResponses {
				ids = append(ids, a.CallID)
			}
			return slices.Equal(ids, append(slices.Clone(b.items), b.calls...))
		})
		if i < 0 {
			return notReached("the second frontend connection never sent its decisions: the kernel never asked the model (the harness sends them while model request 1 hangs)")
		}
		r := sent[i]
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
		if !slices.Equal(items, b.items) || !slices.Equal(calls, b.calls) {
			return fmt.Errorf("frontend/decide (#%d) decided items %v and answered calls %v, none of them pending; the kernel's outcomes name items %v and calls %v: one outcome each, in the order sent, and none for what was not sent, is due", r.Seq, b.items, b.calls, items, calls)
		}
	}
	return nil
}
