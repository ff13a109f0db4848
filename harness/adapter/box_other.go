//go:build !linux

package adapter

import (
	"syscall"
	"time"
)

// Elsewhere than Linux there is no subreaper: a process a kernel starts in a
// new session or process group, outside the kernel's group, is not found at
// teardown and may outlive the run (see the package doc).
type box struct {
	marker string
	pid    int
}

func newBox() *box                       { return &box{marker: MarkerEnv + "=" + newMarker()} }
func enableSubreaper()                   {}
func (b *box) started(pid int)           { b.pid = pid }
func (b *box) killGroup()                { _ = syscall.Kill(-b.pid, syscall.SIGKILL) }
func (b *box) record()                   {}
func (b *box) sweep(time.Duration) error { return nil }
func (b *box) release()                  {}

// starved is not measured elsewhere than Linux.
func (b *box) starved() time.Duration { return 0 }

func (b *box) starvedKnown() time.Duration { return 0 }

func selfStarved() time.Duration { return 0 }

// SelfThreadsWait is not measured elsewhere than Linux.
func SelfThreadsWait() time.Duration { return 0 }
