package fakes

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

// ToolBehavior scripts how a fake tool answers.
type ToolBehavior struct {
	Output   json.RawMessage // default: {"ok":true,"tool":name,"input":input}
	IsError  bool
	Category string
	// Retryable marks an error answer as worth retrying (ER-11).
	Retryable bool
	Crash     bool
	// Barrier, when set, holds each call until the barrier opens.
	Barrier *Barrier
	// Gate, when set, holds each call until the gate is opened.
	Gate *Gate
	// Hold keeps each call in flight this long (after the barrier) before
	// it is answered: the grace window of a non-overlap check, during which
	// a kernel that wrongly starts another call is seen doing so in the
	// recorded order. It orders nothing itself.
	Hold time.Duration
	// Preview is how the tool answers tool/preview.
	Preview PreviewMode
	// PreviewLimit bounds a hanging preview: a call the kernel has not
	// given up on by then is answered normally, so that a kernel without a
	// preview deadline gets a verdict instead of hanging the scenario.
	// Zero holds it until the kernel cancels it or the scenario ends.
	PreviewLimit time.Duration
	// OnStart, when set, runs first when a call arrives: the fake's own
	// script, e.g. a tool that writes memory as it runs (dfirst.go). An
	// error answers the call with that error.
	OnStart func(ctx context.Context, done <-chan struct{}, p wire.ToolInvokeParams) error
	// Respond, when set, answers a call from its params (after the holds):
	// a result or an error (CrashError for a crash) answers it; (nil, nil)
	// leaves the call to the rest of the script. Error-recovery scenarios
	// use it to crash or break the output_schema on some calls only.
	Respond func(p wire.ToolInvokeParams) (*wire.ToolInvokeResult, error)
}

// PreviewMode scripts a tool's tool/preview answer.
type PreviewMode string

// Preview modes.
const (
	PreviewOK   PreviewMode = ""     // answers with a preview text
	PreviewFail PreviewMode = "fail" // answers with a tool error
	PreviewHang PreviewMode = "hang" // never answers (until cancelled)
	PreviewNone PreviewMode = "none" // answers method-not-found: not implemented
)

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

// Update changes part of a tool's script, keeping the rest.
func (t *Tools) Update(name string, f func(b *ToolBehavior)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.by[name]
	f(&b)
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
	if b.OnStart != nil {
		if err := b.OnStart(ctx, done, p); err != nil {
			return wire.ToolInvokeResult{}, err
		}
	}
	if b.Barrier != nil {
		b.Barrier.Arrive(ctx, done)
	}
	if b.Gate != nil {
		if err := b.Gate.Wait(ctx, done); err != nil {
			return wire.ToolInvokeResult{}, err
		}
	}
	if err := holdFor(ctx, done, b.Hold); err != nil {
		return wire.ToolInvokeResult{}, err
	}
	if b.Respond != nil {
		if r, err := b.Respond(p); err != nil || r != nil {
			if err != nil {
				return wire.ToolInvokeResult{}, err
			}
			return *r, nil
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
	return wire.ToolInvokeResult{Output: out, IsError: b.IsError, ErrorCategory: b.Category, Retryable: b.Retryable}, nil
}

// Barrier opens once N calls have arrived; each arrival waits for it. The
// timeout runs from the first arrival: if the barrier has not opened by
// then, waiting calls are released, later arrivals pass at once, and the
// barrier records that it never opened — the proof that the calls did not
// overlap. A kernel that overlaps them opens it as soon as the N-th call
// starts, so the timeout only ever costs a failing kernel time.
type Barrier struct {
	N       int
	Timeout time.Duration

	mu       sync.Mutex
	arrived  int
	inflight int // calls waiting at the barrier now
	inTime   int // arrivals before the timeout
	open     chan struct{}
	first    time.Time
	deadline <-chan time.Time
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
	if b.deadline == nil {
		b.first = time.Now()
		b.deadline = time.After(b.Timeout)
	} else if time.Since(b.first) >= b.Timeout {
		b.timedOut = true // too late to count as overlapping the first call
	}
	if !b.timedOut {
		b.inTime++
	}
	b.inflight++
	// Open only when N calls are waiting here at the same moment: a call
	// that already left (timed out, or cancelled by the kernel) does not
	// count, so calls run one after another can never open it.
	if b.inflight == b.N && !b.timedOut && !b.Opened() {
		close(b.open)
	}
	deadline, timedOut := b.deadline, b.timedOut
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.inflight--
		b.mu.Unlock()
	}()
	if timedOut {
		return
	}
	select {
	case <-b.open:
	case <-deadline:
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

// ArrivedInTime is how many calls reached the barrier before its timeout:
// the most that were ever in flight together at it.
func (b *Barrier) ArrivedInTime() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.inTime
}

// holdFor keeps a call in flight for d, or less if the kernel cancels it
// or the scenario ends.
func holdFor(ctx context.Context, done <-chan struct{}, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-done:
		return errHeld
	}
}

// preview answers tool/preview as the tool's PreviewMode says.
func (t *Tools) preview(ctx context.Context, done <-chan struct{}, p wire.ToolPreviewParams) (wire.ToolPreviewResult, error) {
	switch t.get(p.Tool).Preview {
	case PreviewFail:
		return wire.ToolPreviewResult{}, &jsonrpc.Error{Code: wire.CodeInternal, Message: "the preview of " + p.Tool + " failed"}
	case PreviewNone:
		return wire.ToolPreviewResult{}, &jsonrpc.Error{Code: wire.CodeMethodNotFound, Message: p.Tool + " does not implement preview"}
	case PreviewHang:
		if err := holdPreview(ctx, done, t.get(p.Tool).PreviewLimit); err != nil {
			return wire.ToolPreviewResult{}, err
		}
	}
	return wire.ToolPreviewResult{Preview: "preview of " + p.Tool + " " + string(p.Input)}, nil
}

// holdPreview holds a hanging preview until the kernel cancels it, the
// scenario ends, or limit (if set) passes.
func holdPreview(ctx context.Context, done <-chan struct{}, limit time.Duration) error {
	if limit > 0 {
		return holdFor(ctx, done, limit)
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-done:
		return errHeld
	}
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
func (g *Gate) Wait(ctx context.Context, done <-chan struct{}) error { return await(ctx, done, g.ch) }

// await blocks until ch closes, the kernel gives up on the call (ctx), or
// the scenario ends (done): the one way every held fake call waits.
func await(ctx context.Context, done <-chan struct{}, ch <-chan struct{}) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-done:
		return errHeld
	}
}
