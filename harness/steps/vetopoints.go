package steps

import (
	"fmt"
	"strings"

	"github.com/cucumber/godog"
)

// The reading hooks.veto_points: the points at which the kernel
// acts on a veto subscriber. Every reading gives plan-ready a veto, so the
// suite's other veto scenarios use only that point; a kernel that declares
// another point is held to it there (HD-11), and the scenarios about such
// a point are skipped for every other kernel.
const readingVetoPoints = "hooks.veto_points"

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the kernel declares "([^"]+)" among its veto points$`), s.declaresVetoPoint)
	})
}

func (s *Scenario) declaresVetoPoint(point string) error {
	v, ok := s.env.Info.Readings[readingVetoPoints]
	for _, p := range strings.Split(v, ",") {
		if ok && strings.TrimSpace(p) == point {
			return nil
		}
	}
	s.Skip = fmt.Sprintf("the kernel does not declare %q among its %s (PROTOCOL.md §15, A-20): whether a veto there is acted on is open, so nothing is asserted about it", point, readingVetoPoints)
	return godog.ErrSkip
}
