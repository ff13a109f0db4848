package steps

import (
	"fmt"
	"strconv"

	"github.com/agentconform/conform/spec/wire"

	"github.com/agentconform/conform/internal/plain"
)

// Counts of automatic recovery the spec leaves to the kernel: how many
// context-reduction passes a model call gets before the turn fails (ER-06,
// A-27) and how often a retryable tool error is retried where retries are
// allowed (ER-11). A kernel that declares its count (PROTOCOL.md §15:
// errors.max_reductions, errors.tool_retries) is held to it exactly; one
// that declares none to what every reading shares.

const (
	readingMaxReductions = "errors.max_reductions"
	readingToolRetries   = "errors.tool_retries"
)

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the kernel made as many reduce passes as its errors.max_reductions says$`), s.proves(s.reducePassesAsDeclared, "ER-06"))
		sc.Step(stepRE(`^every call of "([^"]+)" was invoked as often as the kernel's errors.tool_retries says$`), s.proves(s.toolRetriesAsDeclared, "ER-11"))
	})
}

// countReading is a declared count reading: declared is false when the
// kernel left it out; a value below least or not an integer fails.
func (s *Scenario) countReading(key string, least int) (n int, declared bool, err error) {
	v, ok := s.env.Info.Readings[key]
	if !ok || v == "" {
		return 0, false, nil
	}
	n, err = strconv.Atoi(v)
	if err != nil || n < least {
		return 0, true, fmt.Errorf("the kernel declares %s = %q, which is not an integer of at least %d", key, v, least)
	}
	return n, true, nil
}

// ER-06 with A-27, against a context provider that shrinks on every pass
// and a model that always overflows: a declaring kernel makes exactly its
// errors.max_reductions reduce passes and one model request more than
// that; an undeclared one at least one reduce pass (the bound itself is
// "the model was asked fewer than N times").
func (s *Scenario) reducePassesAsDeclared() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	n, declared, err := s.countReading(readingMaxReductions, 1)
	if err != nil {
		return err
	}
	passes := 0
	for _, e := range s.requests() {
		if p, ok := e.Value.(wire.ContextAssembleParams); ok && p.Reduce {
			passes++
		}
	}
	requests := len(s.modelRequests())
	if requests == 0 {
		return notReached("the kernel sent no model request")
	}
	if !declared {
		if passes == 0 {
			return fmt.Errorf("expected at least one context/assemble with reduce: true after context_length_exceeded (the provider could always shrink), the kernel sent %d model request(s) and no reduce pass", requests)
		}
		return nil
	}
	if passes != n || requests != n+1 {
		return fmt.Errorf("expected exactly %d reduce pass(es) and %d model requests, as the kernel's %s = %d says (every pass shrank the request and every request overflowed), it made %d reduce pass(es) and sent %d model request(s)",
			n, n+1, readingMaxReductions, n, passes, requests)
	}
	return nil
}

// ER-11: a call that may be retried, whose provider answers every try with
// a retryable error, is invoked errors.tool_retries + 1 times by a kernel
// that declares the reading. Undeclared, no count is asserted: the retries
// are allowed, not required.
func (s *Scenario) toolRetriesAsDeclared(tool string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	n, declared, err := s.countReading(readingToolRetries, 0)
	if err != nil {
		return err
	}
	if !declared {
		return notApplicable("the kernel declares no %s: automatic retries of %q are allowed, not required (ER-11), so no count is asserted", readingToolRetries, tool)
	}
	byCall := map[string]int{}
	var order []string
	for _, e := range s.requests() {
		if p, ok := e.Value.(wire.ToolInvokeParams); ok && p.Tool == tool {
			if byCall[p.CallID] == 0 {
				order = append(order, p.CallID)
			}
			byCall[p.CallID]++
		}
	}
	if len(order) == 0 {
		return notReached("the kernel never invoked %q", tool)
	}
	for _, id := range order {
		if byCall[id] != n+1 {
			return fmt.Errorf("expected call %s of %q to be invoked %s (the first try and %s, as the kernel's %s = %d says; every try answered a retryable error), it was invoked %s",
				id, tool, plain.Count(n+1, "time"), plain.CountOf(n, "retry", "retries"), readingToolRetries, n, plain.Count(byCall[id], "time"))
		}
	}
	return nil
}
