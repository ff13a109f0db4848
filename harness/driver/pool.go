package driver

import (
	"context"
	"sync"
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

	mu     sync.Mutex
	idle   []*Kernel
	all    map[*Kernel]bool
	closed bool
}

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
	k, err := start(ctx, p.Launcher, p.InitTimeout, p.InitTimeoutName)
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
