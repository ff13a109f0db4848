package driver

import (
	"fmt"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/internal/jsonrpc"
)

// What one scenario may make conform hold. A real session sends every model,
// tool, hook and frontend call and every span, cost, session and event row;
// against the reference kernel the largest scenario of the suite sends 153
// messages (79 KB of params) and the largest of 300 `conform fuzz` cases
// 233 (117 KB). The limits are over 200 times that, room for long sessions
// with large contexts, and they bound conform's memory per scenario (and
// per parallel scenario under -j) whatever the kernel does: a kernel that
// sends 200,000 small notifications in one session leaves conform's peak
// resident memory near 115 MB (TestProtoFloodMemory in harness/runner).
// Past either limit the scenario ends in `error` ("flood"), the kernel is
// stopped, and nothing it sends later is read.
const (
	// MaxMessagesPerScenario bounds the requests and notifications the
	// sessions of one scenario (the root and its children) may send.
	MaxMessagesPerScenario = 50_000
	// MaxBytesPerScenario bounds the bytes of their params.
	MaxBytesPerScenario = 32 << 20
)

// The limits in force; tests lower them.
var (
	maxMessages       = MaxMessagesPerScenario
	maxBytes    int64 = MaxBytesPerScenario
)

// load is what the sessions of one scenario have sent so far.
type load struct {
	root     string
	messages int
	bytes    int64
	flooded  bool
}

type route struct {
	world *fakes.World
	load  *load
}

// verdict of lookup on one arriving message.
type lookupResult int

const (
	found   lookupResult = iota
	unknown              // no scenario runs the session
	dropped              // the scenario flooded; the connection is closing
)

// lookupLocked finds the world of a session and counts the message against its
// scenario's limits; k.mu is held.
func (k *Kernel) lookupLocked(session string, size int) (*fakes.World, lookupResult) {
	r, ok := k.routes[session]
	if !ok {
		k.stray++
		if k.stray == maxMessages+1 {
			k.flood(fmt.Sprintf("the kernel sent more than %d messages for sessions no scenario runs", maxMessages))
			return nil, dropped
		}
		return nil, unknown
	}
	l := r.load
	if l.flooded {
		return nil, dropped
	}
	l.messages++
	l.bytes += int64(size)
	switch {
	case l.messages > maxMessages:
		l.flooded = true
		k.flood(fmt.Sprintf("the kernel sent more than %d messages in one scenario (session %q and its children)", maxMessages, l.root))
		return nil, dropped
	case l.bytes > maxBytes:
		l.flooded = true
		k.flood(fmt.Sprintf("the kernel sent more than %s of messages in one scenario (session %q and its children)", mib(maxBytes), l.root))
		return nil, dropped
	}
	return r.world, found
}

// flood records the fault and stops reading the kernel: nothing it sends
// later is held. k.mu is held; CloseWith takes only the connection's lock.
func (k *Kernel) flood(what string) {
	what = "flood: " + what + fmt.Sprintf("; conform holds at most %d messages and %s per scenario", maxMessages, mib(maxBytes))
	k.faults = append(k.faults, what)
	k.rpc.CloseWith(&jsonrpc.Violation{What: what})
}

func mib(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
