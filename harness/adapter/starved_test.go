//go:build linux

package adapter

import (
	"os"
	"testing"
)

// The summed wait of this process's threads is never less than its
// longest-waiting thread's, and only grows.
func TestSelfThreadsWaitSumsTheThreads(t *testing.T) {
	first := SelfThreadsWait()
	longest, ok := longestWait(os.Getpid())
	sum := SelfThreadsWait()
	if !ok || sum < longest || sum < first {
		t.Errorf("sum %v, longest %v (read %v), first %v: want sum >= longest and growing", sum, longest, ok, first)
	}
}
