package steps

import (
	"fmt"

	"github.com/agentconform/conform/spec/wire"
)

// PA-13 where no human is asked: the plan-ready chain sees each item with
// the kind, risk and description its tool declares, as the permission
// request does (snapshot). A kernel that fills the item only for an ask,
// or builds it from another tool's schema, shows it here; so does a kit
// whose plan items carry an empty description.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		p := &planArea{s: s}
		sc.Step(stepRE(`^the plan-ready payload "([^"]+)" received carried the kind, risk and description "([^"]+)" declares$`), s.proves(p.hookSnapshot, "PA-13"))
	})
}

func (p *planArea) hookSnapshot(sub, tool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	t, err := p.tool(tool)
	if err != nil {
		return err
	}
	seen := false
	for _, e := range s.requestsOf(wire.MethodHookDispatch) {
		v, ok := e.Value.(wire.HookDispatchParams)
		if !ok || v.Subscriber != sub || v.Point != wire.PointPlanReady || v.Payload.Plan == nil {
			continue
		}
		for _, it := range v.Payload.Plan.Items {
			if it.Tool != tool {
				continue
			}
			seen = true
			if name, got, want, differs := undeclared(it, t); differs {
				return fmt.Errorf("the plan-ready payload %q received (#%d) has an item for %q whose %s is %q, the tool declared %q", sub, e.Seq, tool, name, got, want)
			}
		}
	}
	if !seen {
		return notReached("the kernel dispatched no plan-ready payload to %q with an item for %q", sub, tool)
	}
	return nil
}
