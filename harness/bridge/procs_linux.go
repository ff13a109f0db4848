package bridge

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The agent kernel is a child subreaper: what an agent forks and abandons
// (a daemon after setsid, a double fork) is re-parented to it, not to init,
// so the kernel can find it. Every agent process carries runMarker=ID in
// its environment; after the agent exits, the kernel kills and reaps every
// process carrying its run's marker or descending from the agent, and
// names the ones it found (a helper left behind is the agent's
// misbehaviour).

const runMarker = "CONFORM_AGENT_RUN"

// agentProcAttr puts the agent in a process group of its own (ended as a
// group) that dies with the kernel.
func agentProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

var subreaperOnce sync.Once

func enableSubreaper() {
	subreaperOnce.Do(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

type procInfo struct {
	pid, ppid int
	comm      string
	zombie    bool
}

func readProc(pid int) (procInfo, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	s := string(b)
	l, r := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if l < 0 || r < l {
		return procInfo{}, false
	}
	f := strings.Fields(s[r+1:])
	if len(f) < 2 {
		return procInfo{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	return procInfo{pid: pid, ppid: ppid, comm: s[l+1 : r], zombie: f[0] == "Z"}, true
}

func hasMarker(pid int, marker string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if string(kv) == marker {
			return true
		}
	}
	return false
}

// members are the live processes of one run: carrying the marker, or
// descending from a known member, or adopted by this process (the
// subreaper) and not an agent of another run in keep: a daemon that left
// its session and environment behind has no marker and no link to the
// agent, only the adoption.
func members(marker string, seed, keep map[int]bool) []procInfo {
	ents, _ := os.ReadDir("/proc")
	all := map[int]procInfo{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			all[pid] = p
		}
	}
	in := map[int]bool{}
	for pid := range all {
		if seed[pid] || hasMarker(pid, marker) || all[pid].ppid == os.Getpid() && !keep[pid] && adopted(pid) {
			in[pid] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for pid, p := range all {
			if !in[pid] && in[p.ppid] && p.ppid != os.Getpid() {
				in[pid], changed = true, true
			}
		}
	}
	var out []procInfo
	for pid := range in {
		if pid != os.Getpid() {
			out = append(out, all[pid])
		}
	}
	return out
}

// sweep kills every process of the run but the agent itself (which the
// caller waits for) and reaps the ones this process adopted; it returns
// what it found alive. A process that ends by itself within grace is not
// left running: an agent's fire-and-forget helper still finishing as the
// agent exits (Cline's machine-id probe, a pipeline of three processes
// that lives milliseconds) is not a process it left behind.
//
// The agents of every other session in this process (agents.go) are its
// children too and not this run's: they are left alone.
func sweep(marker string, agent int, grace, limit time.Duration) (left []string, err error) {
	seen := map[int]bool{}
	graceEnd := time.Now().Add(grace)
	deadline := graceEnd.Add(limit)
	for {
		agents.starting.Lock()
		keep := otherAgents(agent)
		ms := members(marker, map[int]bool{agent: true}, keep)
		reapZombies(agent, keep)
		agents.starting.Unlock()
		alive := 0
		waiting := time.Now().Before(graceEnd)
		for _, m := range ms {
			if m.pid == agent {
				continue
			}
			if !m.zombie && waiting {
				alive++
				continue
			}
			if !m.zombie {
				alive++
				if !seen[m.pid] {
					seen[m.pid] = true
					left = append(left, fmt.Sprintf("pid %d (%s)", m.pid, cmdline(m)))
				}
				_ = unix.Kill(m.pid, unix.SIGKILL)
			}
			if m.ppid == os.Getpid() {
				var ws syscall.WaitStatus
				_, _ = syscall.Wait4(m.pid, &ws, syscall.WNOHANG, nil)
			}
		}
		if alive == 0 {
			return left, nil
		}
		if time.Now().After(deadline) {
			return left, fmt.Errorf("processes of the agent still alive after %v", limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// reapZombies waits for the dead children of this process but the run's
// agent (its exec.Cmd waits for it) and the other sessions' agents (keep):
// what this process adopted and the sweep killed. A zombie's environ is
// unreadable (ESRCH), so members cannot tell whose it was and the sweep
// would never reap it: Cline's runs left dozens until the kernel exited.
func reapZombies(agent int, keep map[int]bool) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == agent || keep[pid] {
			continue
		}
		if p, ok := readProc(pid); ok && p.zombie && p.ppid == os.Getpid() {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
	}
}

// cmdline is a process's command line, clipped, or its name.
func cmdline(p procInfo) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return p.comm
	}
	s := strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}

// adopted says whether a child of this process is one it adopted as
// subreaper rather than one it started: the processes it starts are
// agents (their run marker is in their environment from exec) and the
// only other children it has are orphans. A child that is still an
// exec'd Go helper of this process itself (none today) would carry no
// marker either; the kernel starts none.
func adopted(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		// Unreadable (gone, or not ours to read): not ours to kill.
		return false
	}
	return !bytes.Contains(b, []byte(runMarker+"="))
}
