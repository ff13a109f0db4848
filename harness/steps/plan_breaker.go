package steps

import (
	"fmt"

	"github.com/agentconform/conform/spec/wire"
)

// The denial circuit breaker's tiers (PA-05): each tier whose threshold is
// positive trips at it, a zero (or absent) threshold switches its tier off
// (PROTOCOL.md CircuitBreaker), and every decision counts in message order,
// an answered interactive call as an allow.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the circuit breaker is set to consecutive (\d+), window (\d+) and window_max (\d+)$`), func(c, w, m int) error {
			s.Cfg.Policy.CircuitBreaker = &wire.CircuitBreaker{Consecutive: c, Window: w, WindowMax: m}
			return nil
		})
		sc.Step(stepRE(`^model request (\d+) still offered tools, so the circuit breaker had not tripped$`), s.proves(s.stillOfferedTools, "PA-05"))
	})
}

// stillOfferedTools: a model request that offers tools is no final-answer
// request, so the kernel had not taken the limit path before it.
func (s *Scenario) stillOfferedTools(nth string) error {
	r, err := s.reachedModelRequest(nth)
	if err != nil {
		return err
	}
	if len(r.Tools) == 0 {
		return fmt.Errorf("model request %s offered no tools: the kernel took the limit path although the denials never reached the breaker's threshold (an allowed call in between ends a run of denials, A-33)", nth)
	}
	return nil
}
