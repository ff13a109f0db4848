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
