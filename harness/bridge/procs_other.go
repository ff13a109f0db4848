//go:build !linux

package bridge

import "time"

const runMarker = "CONFORM_AGENT_RUN"

func enableSubreaper() {}

// sweep finds nothing outside Linux: only the agent's process group is
// killed there.
func sweep(string, int, time.Duration) ([]string, error) { return nil, nil }
