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
	// WriteTo, when set, names the session the writes go to instead of the
	// call's own (a session the kernel never ran, say), so a scenario can
	// see how the kernel refuses a write it must not commit (§17.5).
	WriteTo string
	// WriteAsCallOf, when set, names another tool: the writes carry the
	// call_id of that tool's first call, which has already answered.
	WriteAsCallOf string
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

	mu             sync.Mutex
	confirms       map[string]bool // tool → the user's answer; unscripted: yes
	calls          map[string]int
	cancelled      map[string]int // calls the kernel cancelled while held
	writeErrs      []string
	cancelAt       time.Time           // when the harness asked for a cancellation
	callIDs        map[string][]string // tool → the call ids of its calls, in arrival order
	outcomes       []WriteOutcome
	confirmCancels map[string]bool // tool → its first confirmation cancels the session and holds
	confirmsAsked  map[string]int
}

// WriteOutcome is one memory/write a fake tool sent and the kernel's answer
// (nil: committed).
type WriteOutcome struct {
	Tool      string // the tool that wrote
	SessionID string // the session the write named
	CallID    string // the call_id the write named
	Err       error
}

func newDF(w *World) *DF {
	return &DF{w: w, confirms: map[string]bool{}, calls: map[string]int{}, cancelled: map[string]int{},
		callIDs: map[string][]string{}, confirmCancels: map[string]bool{}, confirmsAsked: map[string]int{}}
}

// SetConfirm scripts the user's answer to every confirmation of a tool.
func (d *DF) SetConfirm(tool string, yes bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.confirms[tool] = yes
}

// SetConfirmCancels makes the first confirmation of a tool have the
// harness cancel the session and then wait, unanswered, until the kernel
// cancels the request ($/cancelRequest), HoldLimit passes or the scenario
// ends. Later confirmations get the scripted answer.
func (d *DF) SetConfirmCancels(tool string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.confirmCancels[tool] = true
}

func (d *DF) confirm(ctx context.Context, p wire.ConfirmParams) (wire.ConfirmResult, error) {
	d.mu.Lock()
	d.confirmsAsked[p.Tool]++
	hold := d.confirmCancels[p.Tool] && d.confirmsAsked[p.Tool] == 1
	yes, ok := d.confirms[p.Tool]
	d.mu.Unlock()
	if hold {
		d.Cancel(p.CallContext.SessionID)
		limit := time.NewTimer(HoldLimit)
		defer limit.Stop()
		select {
		case <-ctx.Done():
			d.mu.Lock()
			d.cancelled[p.Tool]++
			d.mu.Unlock()
			return wire.ConfirmResult{}, ctx.Err()
		case <-limit.C:
		case <-d.w.done:
			return wire.ConfirmResult{}, errHeld
		}
	}
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
		d.callIDs[name] = append(d.callIDs[name], p.CallID)
		var as []string
		if mt.WriteAsCallOf != "" {
			as = d.callIDs[mt.WriteAsCallOf]
		}
		d.mu.Unlock()
		if len(mt.Writes) > 0 {
			wp := p
			if mt.WriteTo != "" {
				wp.CallContext.SessionID = mt.WriteTo
			}
			if mt.WriteAsCallOf != "" {
				wp.CallID = "none: " + mt.WriteAsCallOf + " never ran"
				if len(as) > 0 {
					wp.CallID = as[0]
				}
			}
			d.write(ctx, wp, mt.Writes)
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
// answer; the outcome is kept for the checks, and a failure for their
// messages.
func (d *DF) write(ctx context.Context, p wire.ToolInvokeParams, values map[string]json.RawMessage) {
	d.WriteAs(ctx, p.Tool, wire.MemoryWriteParams{SessionID: p.CallContext.SessionID, CallID: p.CallID, Values: values}, p.CallContext.TurnID)
}

// WriteAs sends one memory/write on behalf of tool, logs it, and records
// its outcome. The harness also uses it after a run, to write to a session
// that has ended.
func (d *DF) WriteAs(ctx context.Context, tool string, mp wire.MemoryWriteParams, turnID string) error {
	keys := slices.Sorted(maps.Keys(mp.Values))
	raw, _ := json.Marshal(mp)
	e := d.w.Log.Begin(KindHarness, wire.MethodMemoryWrite, mp.SessionID, turnID,
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
	d.mu.Lock()
	defer d.mu.Unlock()
	d.outcomes = append(d.outcomes, WriteOutcome{Tool: tool, SessionID: mp.SessionID, CallID: mp.CallID, Err: err})
	if err != nil {
		d.writeErrs = append(d.writeErrs, tool+" wrote "+strings.Join(keys, ",")+": "+err.Error())
	}
	return err
}

// Writes lists the memory writes sent so far and their outcomes.
func (d *DF) Writes() []WriteOutcome {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.outcomes)
}

// CallIDs lists the call ids of a memory-writing tool's calls.
func (d *DF) CallIDs(tool string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.callIDs[tool])
}

// ConfirmsAsked is how many confirmations of a tool the kernel asked for.
func (d *DF) ConfirmsAsked(tool string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.confirmsAsked[tool]
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
