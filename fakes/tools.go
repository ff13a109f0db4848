package fakes

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

// ToolBehavior scripts how a fake tool answers.
type ToolBehavior struct {
	Output   json.RawMessage // default: {"ok":true,"tool":name,"input":input}
	IsError  bool
	Category string
	Crash    bool
	// Barrier, when set, holds each call until the barrier opens.
	Barrier *Barrier
	// Gate, when set, holds each call until the gate is opened.
	Gate *Gate
}

// Tools is the fake tool provider set: behaviours by tool name.
type Tools struct {
	mu sync.Mutex
	by map[string]ToolBehavior
}

func newTools() *Tools { return &Tools{by: map[string]ToolBehavior{}} }

// Set scripts a tool.
func (t *Tools) Set(name string, b ToolBehavior) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.by[name] = b
}

func (t *Tools) get(name string) ToolBehavior {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.by[name]
}

// errCrashed is what a crashing provider "does": the harness answers the
// invoke with CodeProcessCrashed.
var errHeld = errors.New("call held past the scenario's end")

func (t *Tools) invoke(ctx context.Context, done <-chan struct{}, p wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
	b := t.get(p.Tool)
	if b.Barrier != nil {
		b.Barrier.Arrive(ctx, done)
	}
	if b.Gate != nil {
		if err := b.Gate.Wait(ctx, done); err != nil {
			return wire.ToolInvokeResult{}, err
		}
	}
	if b.Crash {
		return wire.ToolInvokeResult{}, crashError("tool provider process exited during the call")
	}
	out := b.Output
	if out == nil {
		in := p.Input
		if len(in) == 0 {
			in = json.RawMessage(`{}`)
		}
		out, _ = json.Marshal(map[string]any{"ok": true, "tool": p.Tool, "input": in})
	}
	return wire.ToolInvokeResult{Output: out, IsError: b.IsError, ErrorCategory: b.Category}, nil
}

// Barrier opens once N calls have arrived; each arrival waits for it. If it
// has not opened within Timeout, waiting calls are released and the barrier
// records that it never opened — the proof that the calls did not overlap.
type Barrier struct {
	N       int
	Timeout time.Duration

	mu       sync.Mutex
	arrived  int
	open     chan struct{}
	timedOut bool
}

// NewBarrier makes a barrier for n calls.
func NewBarrier(n int, timeout time.Duration) *Barrier {
	return &Barrier{N: n, Timeout: timeout, open: make(chan struct{})}
}

// Arrive waits until the barrier opens, times out, or the scenario ends.
func (b *Barrier) Arrive(ctx context.Context, done <-chan struct{}) {
	b.mu.Lock()
	b.arrived++
	if b.arrived == b.N {
		close(b.open)
	}
	b.mu.Unlock()
	t := time.NewTimer(b.Timeout)
	defer t.Stop()
	select {
	case <-b.open:
	case <-t.C:
		b.mu.Lock()
		b.timedOut = true
		b.mu.Unlock()
	case <-ctx.Done():
	case <-done:
	}
}

// Opened reports whether all N calls were in flight together.
func (b *Barrier) Opened() bool {
	select {
	case <-b.open:
		return true
	default:
		return false
	}
}

// Arrived is how many calls reached the barrier.
func (b *Barrier) Arrived() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.arrived
}

// Gate holds calls until opened.
type Gate struct {
	once sync.Once
	ch   chan struct{}
}

// NewGate makes a closed gate.
func NewGate() *Gate { return &Gate{ch: make(chan struct{})} }

// Open releases every waiting and future call.
func (g *Gate) Open() { g.once.Do(func() { close(g.ch) }) }

// Wait blocks until the gate opens, the kernel cancels, or the scenario ends.
func (g *Gate) Wait(ctx context.Context, done <-chan struct{}) error {
	select {
	case <-g.ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-done:
		return errHeld
	}
}
