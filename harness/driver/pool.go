package driver

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentconform/conform/harness/adapter"
)

// Pool hands out initialized kernels, one per running scenario, and starts a
// fresh one whenever a scenario left its kernel unhealthy.
type Pool struct {
	Launcher    adapter.Launcher
	InitTimeout time.Duration
	// InitTimeoutName, when set, is how the user sets InitTimeout (a CLI
	// flag); a kernel that does not answer initialize in time is told so.
	InitTimeoutName string
	// StartSlots bounds how many kernels start at once (0: one per CPU).
	// A kernel's initialize timeout runs from when it gets its slot, not
	// from when it was queued behind others, and kernels that load a large
	// runtime at start-up do not slow each other past their timeout: a
	// busy machine never turns into an `error` verdict of our own making.
	StartSlots int

	mu     sync.Mutex
	idle   []*Kernel
	all    map[*Kernel]bool
	closed bool

	slots chan struct{} // one per kernel starting
	solo  chan struct{} // held by the start in progress until one kernel has started
	// firstTook is how long the first kernel that started took to start
	// and answer initialize, not counting time it waited for a CPU, in
	// nanoseconds; 0 until one has.
	firstTook atomic.Int64
}

// StartMargin is how many times the first kernel's measured start-up a
// later kernel may take before its initialize times out (when that is more
// than InitTimeout): the first start was measured with nothing else of
// ours running, the later ones share the machine with running scenarios.
const StartMargin = 5

// NewPool makes a pool.
func NewPool(l adapter.Launcher) *Pool {
	return &Pool{Launcher: l, InitTimeout: 10 * time.Second, all: map[*Kernel]bool{}}
}

// Get returns an idle healthy kernel or starts one.
func (p *Pool) Get(ctx context.Context) (*Kernel, error) {
	p.mu.Lock()
	for len(p.idle) > 0 {
		k := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if k.Healthy() {
			p.mu.Unlock()
			return k, nil
		}
		delete(p.all, k)
		go k.Close()
	}
	p.mu.Unlock()
	release, err := p.startSlot(ctx)
	if err != nil {
		return nil, err
	}
	timeout, name := p.InitTimeout, p.InitTimeoutName
	if first := p.FirstStart(); StartMargin*first > timeout {
		timeout, name = StartMargin*first, fmt.Sprintf("%d times the first kernel's start-up of %v", StartMargin, first.Round(time.Millisecond))
	}
	k, err := start(ctx, p.Launcher, timeout, name)
	if err == nil {
		p.firstTook.CompareAndSwap(0, max(1, int64(k.startUp)))
	}
	release()
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		k.Close()
		return nil, context.Canceled
	}
	p.all[k] = true
	return k, nil
}

// FirstStart is how long the first kernel of the pool took to start and
// answer initialize, not counting time it waited for a CPU (0 until one
// has): the kernel's start-up, measured with nothing else of the pool
// starting, and as little of the machine's load as can be told apart.
func (p *Pool) FirstStart() time.Duration { return time.Duration(p.firstTook.Load()) }

// startSlot waits for a slot to start a kernel in and returns its release.
// Until one kernel has started, kernels start one at a time: the first
// start-up is measured alone, and a kernel that cannot start at all fails
// once rather than once per job.
func (p *Pool) startSlot(ctx context.Context) (release func(), err error) {
	p.mu.Lock()
	if p.slots == nil {
		n := p.StartSlots
		if n < 1 {
			n = runtime.NumCPU()
		}
		p.slots, p.solo = make(chan struct{}, n), make(chan struct{}, 1)
	}
	slots, solo := p.slots, p.solo
	p.mu.Unlock()
	soloHeld := false
	if p.FirstStart() == 0 {
		select {
		case solo <- struct{}{}:
			soloHeld = true
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if p.FirstStart() != 0 { // another start succeeded while we waited
			<-solo
			soloHeld = false
		}
	}
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		if soloHeld {
			<-solo
		}
		return nil, ctx.Err()
	}
	return func() {
		<-slots
		if soloHeld {
			<-solo
		}
	}, nil
}

// Put returns a kernel; an unhealthy one is stopped.
func (p *Pool) Put(k *Kernel) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed && k.Healthy() {
		p.idle = append(p.idle, k)
		return
	}
	delete(p.all, k)
	go k.Close()
}

// Discard stops a kernel that must not be reused.
func (p *Pool) Discard(k *Kernel) {
	p.mu.Lock()
	delete(p.all, k)
	p.mu.Unlock()
	k.Close()
}

// Close shuts every kernel down and waits for them to exit.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	ks := make([]*Kernel, 0, len(p.all))
	for k := range p.all {
		ks = append(ks, k)
	}
	p.all = map[*Kernel]bool{}
	p.idle = nil
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, k := range ks {
		wg.Add(1)
		go func() { defer wg.Done(); k.Shutdown(context.Background()) }()
	}
	wg.Wait()
}
