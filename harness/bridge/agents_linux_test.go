package bridge

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// An agent another kernel of this process started carries no run marker
// of the sweeping run and is a child of this process, like an adopted
// orphan; the sweep must leave it alone. At load 30 one session's sweep
// killed another session's agent (TestMisbehavingAgentsEndInAClearError
// saw "exited (killed by killed)"), because each kernel only knew its own
// agents and a new agent is unmarked until its exec.
func TestSweepLeavesOtherSessionsAgents(t *testing.T) {
	other := exec.Command("sleep", "30")
	if err := startAgent(other); err != nil {
		t.Skip("no sleep:", err)
	}
	defer func() {
		_ = other.Process.Kill()
		_ = other.Wait()
		endAgent(other.Process.Pid)
	}()
	// This run's own agent, already gone: the sweep looks for what it left.
	own := exec.Command("true")
	if err := startAgent(own); err != nil {
		t.Skip("no true:", err)
	}
	_ = own.Wait()
	endAgent(own.Process.Pid)

	left, err := sweep(runMarker+"=sweep-test", own.Process.Pid, time.Second)
	if err != nil || len(left) > 0 {
		t.Errorf("sweep found %v (err %v); the other session's agent is not this run's", left, err)
	}
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the other session's agent was killed by this run's sweep: %v", err)
	}
}
