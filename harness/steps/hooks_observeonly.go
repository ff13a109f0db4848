package steps

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// A kernel whose hooks can only observe still dispatches a transform
// subscriber in transform mode (PROTOCOL.md §7.2, "a mode it cannot
// honour") and never applies what it returns. It declares so with the
// reading hooks.transforms = observe_only. Then the rows that need the
// change applied fail, and nothing else does: a check that reads the model
// request to learn whether an observer's failure stopped the chain (HD-02,
// HD-10) or whether transforms ran one after another (HD-06) reads the
// chain's own answers instead, since the request can no longer show it.
// The one check that needs the change applied, the payload flow ending at
// the model (HD-01, requestMessagesFrom), fails.
//
// Undeclared, the reading is "applied", the specification's own: every
// check reads the request, as for any kernel.

const readingTransforms = "hooks.transforms"

// observeOnly reports whether the kernel declares that it never applies a
// transform's answer; a value outside the two readings is a fail.
func (s *Scenario) observeOnly() (bool, error) {
	switch v := s.env.Info.Readings[readingTransforms]; v {
	case "", "applied":
		return false, nil
	case "observe_only":
		return true, nil
	default:
		return false, fmt.Errorf("the kernel declares %s = %q; the readings are applied and observe_only", readingTransforms, v)
	}
}

// preModelChain is the pre-model-call chain in the turn of request r and
// the messages the last transform of it answered with (nil when no
// transform answered with a payload).
func (s *Scenario) preModelChain(r wire.ModelStreamParams) ([]calllog.Entry, []wire.Message) {
	var chain []calllog.Entry
	for _, c := range s.hookChains(wire.PointPreModelCall) {
		if c[0].TurnID == r.CallContext.TurnID {
			chain = c
		}
	}
	var out []wire.Message
	for _, e := range chain {
		if s.hookMode(hookParams(e).Subscriber, wire.PointPreModelCall) != wire.ModeTransform {
			continue
		}
		if p, ok := hookResultPayload(e); ok {
			out = p.Messages
		}
	}
	return chain, out
}

// unappliedChain says why request r shows none of its chain's output, for
// a kernel that declares observe_only; ok is false when the kernel does not
// declare it, the chain did not dispatch every transform configured at the
// point, or the request carries any marker the chain added (then the
// request is judged as for any kernel).
func (s *Scenario) unappliedChain(r wire.ModelStreamParams) (out []wire.Message, why string, ok bool) {
	if only, err := s.observeOnly(); err != nil || !only {
		return nil, "", false
	}
	chain, out := s.preModelChain(r)
	if out == nil {
		return nil, "", false
	}
	for _, sub := range s.Cfg.Hooks.Subscribers {
		if sub.Point == wire.PointPreModelCall && sub.Mode == wire.ModeTransform {
			if _, dispatched := hookEntry(chain, sub.ID); !dispatched {
				return nil, "", false
			}
		}
	}
	before := s.hookMarkersIn(hookParams(chain[0]).Payload.Messages)
	added := slices.DeleteFunc(s.hookMarkersIn(out), func(m string) bool { return slices.Contains(before, m) })
	if len(added) == 0 || slices.ContainsFunc(s.hookMarkersIn(r.Messages), func(m string) bool { return slices.Contains(added, m) }) {
		return nil, "", false
	}
	return out, fmt.Sprintf("the kernel declares %s = observe_only, and the request carries none of [%s] its pre-model-call chain returned",
		readingTransforms, strings.Join(added, ", ")), true
}
