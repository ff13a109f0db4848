package hooks

import (
	"errors"
	"fmt"
	"slices"

	"github.com/agentconform/conform/spec/wire"
)

var modes = []string{wire.ModeObserve, wire.ModeTransform, wire.ModeVeto}

// Validate checks every declaration; the error names the offending block.
func Validate(h wire.Hooks) error {
	if h.DefaultTimeoutMS < 0 {
		return errors.New("hooks.default_timeout_ms must not be negative")
	}
	seen := map[string]bool{}
	for i, s := range h.Subscribers {
		block := fmt.Sprintf("hook %q (subscriber %d)", s.ID, i)
		switch {
		case s.ID == "":
			return fmt.Errorf("%s: missing id", block)
		case seen[s.ID+"@"+s.Point]:
			// One plugin may subscribe at several points, but only once
			// at each: a second block would make dispatch order ambiguous.
			return fmt.Errorf("%s: subscribes twice at %s", block, s.Point)
		case s.Point == wire.PointContextAssemble:
			return fmt.Errorf("%s: context-assemble is served by the context provider, not by hook subscribers", block)
		case !slices.Contains(wire.HookPoints, s.Point):
			return fmt.Errorf("%s: unknown hook point %q", block, s.Point)
		case !slices.Contains(modes, s.Mode):
			return fmt.Errorf("%s: unknown mode %q", block, s.Mode)
		case len(s.SupportedPoints) > 0 && !slices.Contains(s.SupportedPoints, s.Point):
			return fmt.Errorf("%s: point %q is not among the subscriber's supported points %v", block, s.Point, s.SupportedPoints)
		case s.TimeoutMS < 0:
			return fmt.Errorf("%s: timeout_ms must not be negative", block)
		}
		seen[s.ID+"@"+s.Point] = true
	}
	return nil
}
