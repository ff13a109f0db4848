package steps

import (
	"fmt"
	"slices"
	"strings"
)

// BridgeHookPoints is the reading with which conform's agent bridge
// declares the points at which it can see the agent's hook dispatches
// ("none" when the profile wires no hook system of the agent).
const BridgeHookPoints = "bridge.hook_points"

// hookPointUnseen says why no dispatch at point can be seen, or "" when it
// can: a coding agent driven through the bridge dispatches only what its
// own hook system relays. A check of a dispatch there is not reached, so
// that an agent whose hooks cannot be seen neither fails for dispatching
// nothing nor passes for it (TA-10's "no hook was dispatched").
func (s *Scenario) hookPointUnseen(point string) string {
	// Only the harness's own bridge may say what it cannot see: a kernel
	// that declared the reading itself would escape every hook check.
	if s.env == nil || !s.env.Bridged {
		return ""
	}
	pts, ok := s.env.Info.Readings[BridgeHookPoints]
	if !ok || slices.Contains(strings.Split(pts, ", "), point) {
		return ""
	}
	return fmt.Sprintf("the bridge sees no %q hook of this agent (%s: %s): whether it was dispatched cannot be told (profile glue)", point, BridgeHookPoints, pts)
}
