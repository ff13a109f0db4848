//go:build !linux

package bridge

import (
	"syscall"
	"time"
)

const runMarker = "CONFORM_AGENT_RUN"

func enableSubreaper() {}

// agentProcAttr puts the agent in a process group of its own; outside
// Linux nothing ends it when the kernel dies.
func agentProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// sweep finds nothing outside Linux: only the agent's process group is
// killed there.
func sweep(string, int, time.Duration, time.Duration) ([]string, error) { return nil, nil }
