//go:build !linux

package bridge

// agentProcesses finds nothing outside Linux, where no /proc lists them.
func agentProcesses() []string { return nil }
