package steps

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentconform/conform/spec/wire"
)

// Attempt numbering and the bounds of automatic recovery: a tool call's
// retries are numbered from 1 (PROTOCOL.md §7.4, ER-11), a request rebuilt
// after a context reduction is a new request that starts again at attempt
// 1 (§7.3, ER-06), and a kernel bounds its reduction passes itself, even
// against a context provider that always finds something to shrink (ER-06,
//

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the tool "([^"]+)" is declared idempotent$`), func(name string) error {
			t, err := s.tool(name)
			if err != nil {
				return err
			}
			t.Idempotent = true
			return nil
		})
		sc.Step(stepRE(`^the context provider contributes a long text every turn and a shorter one on every pass asked to reduce$`), s.contextAlwaysShrinks)
		sc.Step(stepRE(`^every tool/invoke of a call counts its attempts up from 1$`), s.proves(s.invokeAttempts, "ER-11"))
		sc.Step(stepRE(`^model request (\d+) carries attempt (\d+)$`), s.proves(s.requestAttempt, "ER-06"))
	})
}

// contextAlwaysShrinks: every pass asked to reduce returns a text shorter
// than the one before, so no rebuilt request is ever the failed one again.
func (s *Scenario) contextAlwaysShrinks() error {
	const words = 400
	long := "Project notes, in full: " + strings.Repeat("background detail; ", words)
	var mu sync.Mutex
	passes := 0
	s.World.ContextText = func(int) string { return long }
	s.World.ReducedText = func(int) string {
		mu.Lock()
		defer mu.Unlock()
		passes++
		return fmt.Sprintf("Project notes, reduced %d times: ", passes) + strings.Repeat("detail; ", max(1, words-passes))
	}
	return nil
}

// ER-11 (PROTOCOL.md §7.4): the invokes of one call carry attempts 1, 2,
// ... in the order they were sent, whether or not the kernel retries.
func (s *Scenario) invokeAttempts() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	byCall := map[string][]int{}
	for _, e := range s.requests() {
		if p, ok := e.Value.(wire.ToolInvokeParams); ok {
			byCall[p.CallID] = append(byCall[p.CallID], p.Attempt)
		}
	}
	if len(byCall) == 0 {
		return notReached("the kernel invoked no tool")
	}
	ids := make([]string, 0, len(byCall))
	for id := range byCall {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		for i, a := range byCall[id] {
			if a != i+1 {
				return fmt.Errorf("expected the tool/invokes of call %s to carry attempts 1, 2, ... in order (1 on the first try, each retry adding 1), they carry %v", id, byCall[id])
			}
		}
	}
	return nil
}

// ER-06 (PROTOCOL.md §7.3): the attempt number of one model request.
func (s *Scenario) requestAttempt(n, want int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	rs := s.modelRequests()
	if n < 1 || n > len(rs) {
		return notReached("there is no model request %d: the kernel sent %d", n, len(rs))
	}
	if got := rs[n-1].Attempt; got != want {
		return fmt.Errorf("expected model request %d to carry attempt %d (a request rebuilt after a context reduction is a new request, its first try), it carries %d", n, want, got)
	}
	return nil
}
