package steps

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentconform/conform/spec"
	"github.com/cucumber/godog"
)

// capabilitySkip returns why the scenario is skipped: it proves an optional
// requirement whose capability the kernel did not declare. A MUST has no
// capability, so it is never skipped here.
func capabilitySkip(env *Env, p *godog.Scenario) string {
	cat, err := spec.Load()
	if err != nil {
		return ""
	}
	for _, t := range p.Tags {
		r, ok := cat.Get(strings.TrimPrefix(t.Name, "@"))
		if !ok || r.Capability == "" {
			continue
		}
		if !slices.Contains(env.Info.Capabilities, r.Capability) {
			return fmt.Sprintf("the kernel does not declare capability %q (%s is %s)", r.Capability, r.ID, r.Level)
		}
	}
	return ""
}

// declaresCapability skips a scenario that needs an optional bound to fire
// although it judges another requirement: a TA-21 or TA-19 scenario whose
// session the cost bound ends says nothing about a kernel without that
// bound, and tagging it with the bound's requirement would make its checks
// prove that requirement too. Like capabilitySkip, it is a skip, never a
// verdict.
func (s *Scenario) declaresCapability(name string) error {
	if slices.Contains(s.env.Info.Capabilities, name) {
		return nil
	}
	s.Skip = fmt.Sprintf("the kernel does not declare capability %q, which this scenario needs to fire: nothing is asserted about it", name)
	return godog.ErrSkip
}

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the kernel declares capability "([^"]+)"$`), s.declaresCapability)
	})
}
