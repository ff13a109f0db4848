package adapter

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Containment on Linux. conform makes itself a child subreaper, so a process
// whose parent dies is re-parented to conform instead of to init: whatever a
// kernel starts stays inside conform's process tree, even after `setsid` and
// a double fork. At teardown the box finds the kernel's processes in that
// tree, kills them and reaps the ones conform adopted.
//
// Several kernels run at once (-j), and after re-parenting an orphan's
// parent is conform whichever kernel it came from, so the tree alone cannot
// say whose an orphan is. Three things can:
//   - processes seen below the kernel while it was still alive (the box
//     records the kernel's tree before it closes the kernel's stdin);
//   - the kernel's process group, while its number still names no other
//     process;
//   - MarkerEnv, unique per kernel, inherited by every process the kernel
//     starts unless one of them clears its environment.
//
// A process that both cleared its environment and left the kernel's tree
// and group before teardown is not found; it stays conform's child until
// conform exits (the package doc states this limit).
//
// Only processes in conform's own subtree are ever signalled or waited for,
// never another kernel (live kernels are registered) and never a child that
// other code in the same program started with os/exec.

var subreaper struct {
	once sync.Once
	err  error
}

// enableSubreaper turns conform into a subreaper before the first kernel
// starts, so no orphan of any kernel can be re-parented past it.
func enableSubreaper() {
	subreaper.once.Do(func() {
		subreaper.err = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	})
}

// liveKernels are the kernel processes running now; no box touches another
// box's kernel, whose exit status belongs to its exec.Cmd.
var liveKernels struct {
	sync.Mutex
	m map[ident]bool
}

type box struct {
	marker string // MarkerEnv=value
	kernel ident
	known  map[ident]bool // every process seen as this kernel's
	killed map[ident]bool

	waitMu sync.Mutex
	waits  map[ident]time.Duration // run-queue wait per process seen (starved)
}

func newBox() *box {
	return &box{marker: MarkerEnv + "=" + newMarker(), known: map[ident]bool{}, killed: map[ident]bool{}}
}

// started registers the kernel; its exec.Cmd has not been waited for yet,
// so its stat is readable even if it already exited.
func (b *box) started(pid int) {
	p, ok := readStat(pid)
	if !ok {
		p = proc{pid: pid}
	}
	b.kernel = p.ident()
	liveKernels.Lock()
	if liveKernels.m == nil {
		liveKernels.m = map[ident]bool{}
	}
	liveKernels.m[b.kernel] = true
	liveKernels.Unlock()
}

// killGroup kills the kernel's process group, unless the kernel has been
// reaped, its group emptied and its number given to another process.
func (b *box) killGroup() {
	if p, ok := readStat(b.kernel.pid); ok && p.ident() != b.kernel {
		return
	}
	_ = unix.Kill(-b.kernel.pid, unix.SIGKILL)
}

func (b *box) release() {
	liveKernels.Lock()
	delete(liveKernels.m, b.kernel)
	liveKernels.Unlock()
}

// record notes the kernel's current tree while the kernel still holds it
// together: a child that cleared its environment is found by its ancestry
// now, and by this record once its parent is gone.
func (b *box) record() {
	ps, err := scanProcs()
	if err != nil {
		return
	}
	for _, m := range b.members(ps) {
		b.known[m.ident()] = true
	}
}

// sweep kills every process of the kernel and reaps the ones conform adopted,
// until none is left or the deadline passes. The kernel process itself is
// left to its exec.Cmd (the caller has waited for it).
func (b *box) sweep(limit time.Duration) error {
	self := os.Getpid()
	deadline := time.Now().Add(limit)
	pause := time.Millisecond
	for {
		ps, err := scanProcs()
		if err != nil {
			return fmt.Errorf("list processes: %w", err)
		}
		ms := b.members(ps)
		isMember := map[int]bool{}
		for _, m := range ms {
			isMember[m.pid] = true
		}
		var left []int
		for _, m := range ms {
			id := m.ident()
			b.known[id] = true
			if id == b.kernel {
				continue
			}
			if m.dead() {
				switch {
				case m.ppid == self:
					reap(m)
				case isMember[m.ppid]:
					// Comes to conform once its dying parent is gone.
					left = append(left, m.pid)
				}
				continue
			}
			if !b.killed[id] {
				kill(m)
				b.killed[id] = true
			}
			left = append(left, m.pid)
		}
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes the kernel started did not end within %v: pids %v", limit, left)
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// members lists the processes of ps that belong to this kernel.
func (b *box) members(ps map[int]proc) []proc {
	self := os.Getpid()
	liveKernels.Lock()
	others := map[ident]bool{}
	for id := range liveKernels.m {
		if id != b.kernel {
			others[id] = true
		}
	}
	liveKernels.Unlock()
	// The kernel's group is still its own unless its pid now names another
	// process: a pid is not reused while a group bears it, so once the
	// group is empty a later process (another kernel, any child) may be
	// given it and lead a group of the same number.
	leader, ok := ps[b.kernel.pid]
	ownGroup := !ok || leader.ident() == b.kernel

	inTree := map[int]bool{}
	var under func(pid, depth int) bool // pid's ancestry reaches conform
	under = func(pid, depth int) bool {
		p, ok := ps[pid]
		if !ok || pid == self || depth > len(ps) {
			return false
		}
		if v, ok := inTree[pid]; ok {
			return v
		}
		v := p.ppid == self || under(p.ppid, depth+1)
		inTree[pid] = v
		return v
	}
	memo := map[int]bool{}
	var member func(pid, depth int) bool
	member = func(pid, depth int) bool {
		if v, ok := memo[pid]; ok {
			return v
		}
		p := ps[pid]
		id := p.ident()
		v := false
		switch {
		case !under(pid, 0) || others[id] || depth > len(ps):
		case id == b.kernel || b.known[id]:
			v = true
		case ownGroup && p.pgid == b.kernel.pid && p.start >= b.kernel.start:
			v = true
		case hasMarker(pid, b.marker):
			v = true
		case p.ppid != self:
			v = member(p.ppid, depth+1)
		}
		memo[pid] = v
		return v
	}
	var out []proc
	for pid, p := range ps {
		if member(pid, 0) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b proc) int { return a.pid - b.pid })
	return out
}

// kill sends SIGKILL to p if p is still the process that was listed: the
// pidfd pins the process, and the start time read after opening it proves
// the pid was not reused in between.
func kill(p proc) {
	fd, err := unix.PidfdOpen(p.pid, 0)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			return
		}
		// No pidfd (Linux before 5.3): the window between the check and
		// the kill is as small as it can be made.
		if q, ok := readStat(p.pid); ok && q.start == p.start {
			_ = unix.Kill(p.pid, unix.SIGKILL)
		}
		return
	}
	defer unix.Close(fd)
	if q, ok := readStat(p.pid); ok && q.start == p.start {
		_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	}
}

// reap collects an adopted zombie. Waiting on its own pid, never on any
// child, leaves every exec.Cmd's exit status to its Wait; a zombie's pid
// cannot be reused until it is reaped, and only its parent (conform) can.
func reap(p proc) {
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(p.pid, &ws, unix.WNOHANG, nil)
		if err != unix.EINTR {
			return
		}
	}
}
