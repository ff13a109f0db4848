package bridge

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
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

	left, err := sweep(runMarker+"=sweep-test", own.Process.Pid, 0, time.Second)
	if err != nil || len(left) > 0 {
		t.Errorf("sweep found %v (err %v); the other session's agent is not this run's", left, err)
	}
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the other session's agent was killed by this run's sweep: %v", err)
	}
}

// A process the kernel adopted and the sweep killed is a zombie whose
// environ cannot be read, so nothing says whose it was: the sweep reaps
// every dead child of this process but the agents (its own, waited for by
// its exec.Cmd, and the other sessions'). A Cline run left dozens of
// zombies until its kernel exited.
func TestSweepReapsTheDeadItAdopted(t *testing.T) {
	adopted := exec.Command("true") // stands for an orphan this process adopted
	if err := adopted.Start(); err != nil {
		t.Skip("no true:", err)
	}
	other := exec.Command("true")
	if err := startAgent(other); err != nil {
		t.Skip("no true:", err)
	}
	defer endAgent(other.Process.Pid)
	for _, pid := range []int{adopted.Process.Pid, other.Process.Pid} {
		deadline := time.Now().Add(5 * time.Second)
		for p, ok := readProc(pid); !ok || !p.zombie; p, ok = readProc(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("pid %d did not exit", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	if _, err := sweep(runMarker+"=reap-test", -1, 0, time.Second); err != nil {
		t.Fatal(err)
	}
	if p, ok := readProc(adopted.Process.Pid); ok && p.zombie {
		t.Errorf("the sweep left the adopted process %d a zombie", p.pid)
	}
	if err := other.Wait(); err != nil {
		t.Errorf("another session's agent was reaped by this run's sweep: %v", err)
	}
}

// A helper that ends by itself within the grace is not left running; one
// that outlives it is named and killed. Cline's machine-id probe, a
// pipeline that lives milliseconds, was still running as the CLI exited
// in 20 scenarios of a whole run, each of which became an error.
func TestSweepGivesHelpersTheirGrace(t *testing.T) {
	marker := runMarker + "=grace-test"
	quick := exec.Command("sleep", "0.3")
	slow := exec.Command("sleep", "30")
	for _, c := range []*exec.Cmd{quick, slow} {
		c.Env = append(os.Environ(), marker)
		if err := c.Start(); err != nil {
			t.Skip("no sleep:", err)
		}
		defer func() { _ = c.Process.Kill(); _ = c.Wait() }()
	}
	left, err := sweep(marker, -1, 2*time.Second, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	name := func(c *exec.Cmd) string { return fmt.Sprintf("pid %d ", c.Process.Pid) }
	if got := strings.Join(left, ", "); !strings.Contains(got, name(slow)) || strings.Contains(got, name(quick)) {
		t.Errorf("left = %v, want the 30 s sleep (pid %d) and not the 0.3 s one (pid %d)", left, slow.Process.Pid, quick.Process.Pid)
	}
	if err := slow.Wait(); err == nil {
		t.Error("the helper that outlived the grace was not killed")
	}
}
