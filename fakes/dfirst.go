package fakes

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

// The deterministic-first side of a world (PROTOCOL.md §17): the user's
// answers to frontend/confirm, and tools that write session memory while
// they run (memory/write) and may hold until the kernel cancels them.

// MemoryWriter is the kernel a running fake tool writes memory to. The
// driver's kernel is one; the world reaches it through the kernel its
// Agents were bound to.
type MemoryWriter interface {
	WriteMemory(ctx context.Context, p wire.MemoryWriteParams) error
}

// MemoryTool scripts a tool that writes memory as it runs.
type MemoryTool struct {
	// Writes are written (one memory/write, answered before the tool goes
	// on) as soon as a call arrives.
	Writes map[string]json.RawMessage
	// CancelSession: on its first call, once its writes are committed, the
	// tool asks the harness to cancel its session.
	CancelSession bool
	// HoldFirst: the first call, once its writes are committed, waits
	// until the kernel cancels it ($/cancelRequest), HoldLimit passes, or
	// the scenario ends. Later calls answer at once. The limit keeps a
	// kernel that never lets go from hanging the scenario: it gets a late
	// answer, and the checks fail.
	HoldFirst bool
}

// HoldLimit is how long a HoldFirst call waits for the kernel to cancel it.
const HoldLimit = 4 * time.Second

// DF is the deterministic-first side of a world.
type DF struct {
	w *World

	mu        sync.Mutex
	confirms  map[string]bool // tool → the user's answer; unscripted: yes
	calls     map[string]int
	cancelled map[string]int // calls the kernel cancelled while held
	writeErrs []string
	cancelAt  time.Time // when the harness asked for a cancellation
}

func newDF(w *World) *DF {
	return &DF{w: w, confirms: map[string]bool{}, calls: map[string]int{}, cancelled: map[string]int{}}
}

// SetConfirm scripts the user's answer to every confirmation of a tool.
func (d *DF) SetConfirm(tool string, yes bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.confirms[tool] = yes
}

func (d *DF) confirm(_ context.Context, p wire.ConfirmParams) (wire.ConfirmResult, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	yes, ok := d.confirms[p.Tool]
	return wire.ConfirmResult{Confirmed: yes || !ok}, nil
}

// SetTool makes a tool write memory as it runs; the rest of its script
// (output, holds) stays as the world's Tools have it.
func (d *DF) SetTool(name string, mt MemoryTool) {
	d.w.Tools.Update(name, func(b *ToolBehavior) { b.OnStart = d.start(name, mt) })
}

func (d *DF) start(name string, mt MemoryTool) func(ctx context.Context, done <-chan struct{}, p wire.ToolInvokeParams) error {
	return func(ctx context.Context, done <-chan struct{}, p wire.ToolInvokeParams) error {
		d.mu.Lock()
		d.calls[name]++
		first := d.calls[name] == 1
		d.mu.Unlock()
		if len(mt.Writes) > 0 {
			d.write(ctx, p, mt.Writes)
		}
		if first && mt.CancelSession {
			d.Cancel(p.CallContext.SessionID)
		}
		if !first || !mt.HoldFirst {
			return nil
		}
		limit := time.NewTimer(HoldLimit)
		defer limit.Stop()
		select {
		case <-ctx.Done():
			d.mu.Lock()
			d.cancelled[name]++
			d.mu.Unlock()
			return ctx.Err()
		case <-limit.C:
			return nil
		case <-done:
			return errHeld
		}
	}
}

// write sends one memory/write for a call in flight and waits for its
// answer; a failure is kept for the checks' messages.
func (d *DF) write(ctx context.Context, p wire.ToolInvokeParams, values map[string]json.RawMessage) {
	mp := wire.MemoryWriteParams{SessionID: p.CallContext.SessionID, CallID: p.CallID, Values: values}
	keys := slices.Sorted(maps.Keys(values))
	raw, _ := json.Marshal(mp)
	e := d.w.Log.Begin(KindHarness, wire.MethodMemoryWrite, p.CallContext.SessionID, p.CallContext.TurnID,
		"harness memory/write "+strings.Join(keys, ","), raw, mp)
	d.w.Agents.mu.Lock()
	k := d.w.Agents.kernel
	d.w.Agents.mu.Unlock()
	mw, ok := k.(MemoryWriter)
	var err error
	if ok {
		err = mw.WriteMemory(ctx, mp)
	} else {
		err = errNoMemoryWriter
	}
	d.w.Log.Finish(e, wire.Empty{}, err)
	if err != nil {
		d.mu.Lock()
		d.writeErrs = append(d.writeErrs, p.Tool+" wrote "+strings.Join(keys, ",")+": "+err.Error())
		d.mu.Unlock()
	}
}

var errNoMemoryWriter = errors.New("this harness has no kernel to write memory to")

// Cancel asks the kernel to cancel a session now (without waiting for the
// answer) and notes when.
func (d *DF) Cancel(session string) {
	d.mu.Lock()
	if d.cancelAt.IsZero() {
		d.cancelAt = time.Now()
	}
	d.mu.Unlock()
	d.w.Agents.Cancel(session)
}

// CancelledAt is when the harness first asked for a cancellation (zero if
// it never did).
func (d *DF) CancelledAt() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cancelAt
}

// Calls is how many calls of a memory-writing tool arrived.
func (d *DF) Calls(tool string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.calls[tool]
}

// Cancelled is how many held calls of a tool the kernel cancelled.
func (d *DF) Cancelled(tool string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cancelled[tool]
}

// WriteErrors lists the memory writes the kernel refused.
func (d *DF) WriteErrors() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.writeErrs)
}
