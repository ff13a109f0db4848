package steps

import (
	"errors"
	"fmt"

	"github.com/cucumber/godog"

	"github.com/agentconform/conform/spec/wire"
)

// Config values the schema admits and the specification gives no meaning:
// a bound of 0 (bound.zero), a hook timeout of 0 ms (hooks.zero_timeout,
// A-24), and whether 1.5 and 1.50 are one input to the doom-loop hash
// (doom_loop.number_identity, A-04). A kernel that declares its reading is
// held to it; for one that does not, the scenario is skipped, so nothing is
// asserted about these values and none of its verdicts moves (a skipped
// scenario beside passing ones leaves a pass whole, where a check not
// reached would make it partial).

// The readings of this file (PROTOCOL.md §15).
const (
	readingBoundZero      = "bound.zero"
	readingHookZero       = "hooks.zero_timeout"
	readingNumberIdentity = "doom_loop.number_identity"
)

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the kernel declares its reading of "([^"]+)"$`), s.declaresReading)

		sc.Step(stepRE(`^the kernel answered the bound of 0 as its reading "bound\.zero" says$`), s.proves(s.zeroBoundAsDeclared, "TA-02", "TA-04", "TA-05"))
		sc.Step(stepRE(`^the kernel treated the 0 ms timeout of "([^"]+)" as its reading "hooks\.zero_timeout" says$`), s.proves(s.zeroTimeoutAsDeclared, "HD-05"))
		sc.Step(stepRE(`^the doom-loop detector told the numbers apart as its reading "doom_loop\.number_identity" says: (\d+) ordinary turns if they differ, the limit path after (\d+) if they are one value$`), s.proves(s.numberIdentityAsDeclared, "TA-12"))
	})
}

// declaresReading skips the scenario when the kernel left the reading out:
// the scenario then has nothing it may assert.
func (s *Scenario) declaresReading(key string) error {
	if _, ok := s.env.Info.Readings[key]; ok {
		return nil
	}
	s.Skip = fmt.Sprintf("the kernel does not declare the reading %s (PROTOCOL.md §15): what the scenario looks at is open, so nothing is asserted about it", key)
	return godog.ErrSkip
}

// declared is the kernel's reading of key, or not reached when it has none
// (the scenario's Given step normally skips it first).
func (s *Scenario) declared(key string) (string, error) {
	v, ok := s.env.Info.Readings[key]
	if !ok {
		return "", notReached("the kernel does not declare the reading %s", key)
	}
	return v, nil
}

// firm turns a check that was not reached into a failure: under a declared
// reading the thing it looks at must happen.
func firm(err error, what string) error {
	var nr *notReachedError
	if errors.As(err, &nr) {
		return fmt.Errorf("%s: %s", what, nr.why)
	}
	return err
}

// zeroBound is the bound the scenario set to 0 and the status it ends with
// when it fires; profile names the sub-agent profile whose max_turns is 0,
// if that is the one.
func (s *Scenario) zeroBound() (name, status, profile string, err error) {
	if sa := s.Cfg.Subagents; sa != nil {
		for _, p := range sa.Profiles {
			if p.MaxTurns != nil && *p.MaxTurns == 0 {
				return "subagents.profiles[" + p.Name + "].max_turns", wire.StatusErrorMaxTurns, p.Name, nil
			}
		}
	}
	b := s.Cfg.Bounds
	switch {
	case b.MaxTurns != nil && *b.MaxTurns == 0:
		return "max_turns", wire.StatusErrorMaxTurns, "", nil
	case b.MaxWallClockS != nil && *b.MaxWallClockS == 0:
		return "max_wall_clock_s", wire.StatusErrorMaxWallClock, "", nil
	case b.Weights != nil && b.Weights.MaxWeightedTokens == 0:
		return "weights.max_weighted_tokens", wire.StatusErrorMaxBudgetUSD, "", nil
	}
	return "", "", "", scenarioDefect("the scenario sets no bound to 0 (max_turns, max_wall_clock_s, weights.max_weighted_tokens or a sub-agent profile's max_turns)")
}

// TA-02/TA-04/TA-05 under bound.zero (a sub-agent profile's max_turns is
// the child's turn cap, TA-02): "refused" answers the config -32001
// before anything starts; "fires_at_first_check" runs one ordinary turn,
// whose step 17 finds the bound reached, then the final-answer turn, and
// ends with the bound's status. "Unbounded" is no reading: an unset bound
// is left out of the config, so 0 is never "unset" (PROTOCOL.md
// SessionConfig).
func (s *Scenario) zeroBoundAsDeclared() error {
	v, err := s.declared(readingBoundZero)
	if err != nil {
		return err
	}
	name, status, profile, err := s.zeroBound()
	if err != nil {
		return err
	}
	switch v {
	case "refused":
		return s.refusedBeforeStart()
	case "fires_at_first_check":
		what := fmt.Sprintf("%s = fires_at_first_check, %s 0", readingBoundZero, name)
		if err := s.mustHaveRun(); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if profile != "" {
			// The child's final-answer turn and status are TA-08's and
			// TA-21's, as for any child (saChildTurns).
			return firm(s.saChildTurns(profile, "child", 1), what)
		}
		return errors.Join(firm(s.ordinaryTurns(1), what), firm(s.oneFinalTurn(), what), firm(s.statusNamesBound(status), what))
	}
	return fmt.Errorf("%s = %q is none of the values PROTOCOL.md §15 allows (refused, fires_at_first_check)", readingBoundZero, v)
}

// HD-05 under hooks.zero_timeout, for a subscriber whose effective timeout
// is 0 ms: "none" waits for its answer however long it takes; "immediate"
// gives it up at once and goes on as its mode says; "refused" answers the
// config -32001. Either way a dispatch that is sent announces timeout_ms 0,
// the effective timeout from the config (PROTOCOL.md §7.2).
func (s *Scenario) zeroTimeoutAsDeclared(id string) error {
	v, err := s.declared(readingHookZero)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("%s = %s", readingHookZero, v)
	switch v {
	case "refused":
		return s.refusedBeforeStart()
	case "none":
		return errors.Join(firm(s.announcedTimeout(id, 0), what), firm(s.waitedFor(id), what))
	case "immediate":
		return errors.Join(firm(s.announcedTimeout(id, 0), what), firm(s.gaveUpOn(id, 0), what))
	}
	return fmt.Errorf("%s = %q is none of the values PROTOCOL.md §15 allows (none, immediate, refused)", readingHookZero, v)
}

// TA-12 under doom_loop.number_identity, for a run of calls to one tool
// whose inputs differ only in how one number that is not an integer is
// written (1.5, 1.50, 15e-1, ...), no two neighbours written alike:
// "as_written" hashes them apart, so the detector never fires and the
// session runs its whole script to the model's text; "value" (RFC 8785)
// hashes them alike, so the limit path begins right after the
// threshold-th call.
func (s *Scenario) numberIdentityAsDeclared(scripted, threshold int) error {
	v, err := s.declared(readingNumberIdentity)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("%s = %s", readingNumberIdentity, v)
	if err := s.mustHaveRun(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	switch v {
	case "as_written":
		if err := s.ordinaryTurns(scripted); err != nil {
			return fmt.Errorf("%s (1.5 and 1.50 are different inputs, so the detector must not fire): %w", what, err)
		}
		return firm(s.sessionEndsWith(wire.StatusCompleted), what)
	case "value":
		return errors.Join(firm(s.ordinaryTurns(threshold), what+" (1.5 and 1.50 are one input)"), firm(s.oneFinalTurn(), what))
	}
	return fmt.Errorf("%s = %q is none of the values PROTOCOL.md §15 allows (as_written, value)", readingNumberIdentity, v)
}
