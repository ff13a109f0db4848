package steps

import (
	"context"
	"fmt"
	"sync"

	"github.com/agentconform/conform/harness/driver"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// The other side of HD-14's condition: a hook_error is the record of a
// subscriber that failed, so a call the kernel itself abandoned, because
// the harness cancelled the session while it was in flight, is no
// subscriber's failure (PROTOCOL.md §5 item 4: the cancelled tree's
// requests are abandoned). A loop that takes its own abandoned call for
// the subscriber's error reports a failure that never happened, and for
// a transform aborts its chain as if it had.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the harness cancels the session once "([^"]+)" is dispatched$`), s.cancelOnHookCall)
		sc.Step(stepRE(`^no hook_error event names "([^"]+)", whose call the kernel abandoned, though the kernel recorded the failure of "([^"]+)"$`), s.proves(s.noHookErrorFor, "HD-14"))
	})
}

func (s *Scenario) cancelOnHookCall(id string) error {
	s.hookCancelFor = id
	s.cancelledWhen = fmt.Sprintf("while its hook call to %q was in flight", id)
	s.onRun = append(s.onRun, func(k *driver.Kernel) {
		var once sync.Once
		b := s.World.Hooks.Get(id)
		b.OnCall = func(p wire.HookDispatchParams) {
			if p.CallContext.SessionID != s.SessionID {
				return
			}
			once.Do(func() {
				s.cancelSent.Store(true)
				go func() { _ = k.Cancel(context.Background(), s.SessionID) }()
			})
		}
		s.World.Hooks.Set(id, b)
	})
	return nil
}

// witness is a subscriber that really failed in the same session: only a
// kernel that records such a failure says something by its silence about
// the abandoned call (a kernel that reports no subscriber failure at all
// would pass an absence for nothing).
func (s *Scenario) noHookErrorFor(id, witness string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if s.hookCancelFor != id {
		return scenarioDefect("the scenario cancels the session during the call to %q, not %q", s.hookCancelFor, id)
	}
	if !s.cancelSent.Load() {
		return notReached("the kernel never dispatched %q, so the harness never cancelled the session during its call", id)
	}
	if err := s.recordAttributable(witness); err != nil {
		return notReached("the kernel recorded no failure of %q either, so its silence about %q shows nothing", witness, id)
	}
	if evs := s.eventsNaming(wire.EventHookError, id); len(evs) > 0 {
		return fmt.Errorf("the harness cancelled the session while the kernel's call to %q was in flight, and the kernel reported a hook_error for it (producer %q, %s): the kernel abandoned that call, the subscriber did not fail", id, evs[0].Producer, plain.JSON(evs[0].Payload))
	}
	return nil
}
