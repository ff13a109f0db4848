package steps

import (
	"fmt"
	"slices"
)

// TA-19 with two bounds tripping at the same step 17 (issue 29,
// TA-19.two-at-once): one limit path runs, and the status names one of the
// bounds that tripped; which one is the kernel's choice.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the status names one of the bounds that tripped: "([^"]+)" or "([^"]+)"$`), s.proves(func(a, b string) error {
			if err := s.mustHaveRun(); err != nil {
				return err
			}
			if !slices.Contains([]string{a, b}, s.Result.Status) {
				return fmt.Errorf("two bounds tripped at the same check; the session ended %q, not the status of either (%q or %q)", s.Result.Status, a, b)
			}
			return nil
		}, "TA-19"))
	})
}
