package bridge

import (
	"os/exec"
	"sync"
)

// agents are the agent processes every bridge kernel of this process runs
// now. They are one registry for the whole process, not one per kernel:
// the sweep treats an unmarked child of this process as an orphan it
// adopted, so it must know every agent any kernel here started (tests run
// several kernels in one process), and must not look while one is being
// started — between fork and exec a new agent is an unmarked child too,
// and at load 30 one session's sweep killed another's agent in that gap.
var agents struct {
	// starting is held for reading while an agent is forked and exec'd,
	// and for writing while a sweep reads /proc.
	starting sync.RWMutex
	mu       sync.Mutex
	pids     map[int]bool
}

// startAgent starts cmd and registers its process before any sweep can
// see it.
func startAgent(cmd *exec.Cmd) error {
	agents.starting.RLock()
	defer agents.starting.RUnlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	agents.mu.Lock()
	defer agents.mu.Unlock()
	if agents.pids == nil {
		agents.pids = map[int]bool{}
	}
	agents.pids[cmd.Process.Pid] = true
	return nil
}

// endAgent forgets an agent once it has been waited for and swept.
func endAgent(pid int) {
	agents.mu.Lock()
	defer agents.mu.Unlock()
	delete(agents.pids, pid)
}

// otherAgents are the registered agents but own, for a sweep to leave
// alone; call it with agents.starting held for writing.
func otherAgents(own int) map[int]bool {
	agents.mu.Lock()
	defer agents.mu.Unlock()
	out := make(map[int]bool, len(agents.pids))
	for pid := range agents.pids {
		if pid != own {
			out[pid] = true
		}
	}
	return out
}
