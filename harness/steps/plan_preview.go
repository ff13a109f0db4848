package steps

// Previews and plan-item snapshots (PA-11, PA-12, PA-13).

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// PA-11: no preview for reads and interactive calls, asked or kept.
func (p *planArea) noPreviewFor(list string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	tools := quotedList(list)
	for _, e := range s.requests() {
		if v, ok := e.Value.(wire.ToolPreviewParams); ok && slices.Contains(tools, v.Tool) {
			return fmt.Errorf("expected no preview for %q (only resource items get one), the kernel sent %q (#%d)", v.Tool, e.Label, e.Seq)
		}
	}
	for _, a := range s.permissionItems(s.SessionID) {
		if slices.Contains(tools, a.item.Tool) && a.item.Preview != nil {
			return fmt.Errorf("the plan item of %q in permission request #%d carries a preview", a.item.Tool, a.entry.Seq)
		}
	}
	for _, e := range s.eventEntries(s.SessionID, wire.EventPlanItem) {
		ev := e.Value.(wire.Event)
		if _, has := ev.Payload["preview"]; has && slices.Contains(tools, payloadString(ev, "tool")) {
			return fmt.Errorf("the plan_item row #%d of %q carries a preview", e.Seq, payloadString(ev, "tool"))
		}
	}
	return nil
}

// firstAsked is the first permission item about a tool.
func (p *planArea) firstAsked(tool string) (askedItem, error) {
	for _, a := range p.s.permissionItems(p.s.SessionID) {
		if a.item.Tool == tool {
			return a, nil
		}
	}
	return askedItem{}, fmt.Errorf("expected a permission request about %q, the frontend received none", tool)
}

// previewRequest is the tool/preview request for a call, if the kernel
// sent one.
func (s *Scenario) previewRequest(callID string) (calllog.Entry, bool) {
	for _, e := range s.requests() {
		if v, ok := e.Value.(wire.ToolPreviewParams); ok && v.CallID == callID {
			return e, true
		}
	}
	return calllog.Entry{}, false
}

// PA-12: a missing, failing or hanging preview leaves the item without one,
// and the human still sees the raw input. A kernel that never asked for the
// preview was never exposed to its failure: not reached.
func (p *planArea) noPreviewButInput(tool string) error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	a, err := p.firstAsked(tool)
	if err != nil {
		return err
	}
	if _, asked := p.s.previewRequest(a.item.ToolCallID); !asked {
		return notReached("the kernel never asked for the preview of %q, so a failing preview could not affect the item", tool)
	}
	if a.item.Preview != nil {
		return fmt.Errorf("expected the permission request (#%d) about %q to carry no preview, it carries %q", a.entry.Seq, tool, *a.item.Preview)
	}
	for _, c := range p.s.modelCalls() {
		if c.ID == a.item.ToolCallID {
			if !jsonEqual(c.Input, a.item.Input) {
				return fmt.Errorf("expected the permission request (#%d) about %q to carry the call's input %s, it carries %s", a.entry.Seq, tool, compact(c.Input), compact(a.item.Input))
			}
			return nil
		}
	}
	return fmt.Errorf("the permission item about %q names tool_call_id %q, which the model never emitted", tool, a.item.ToolCallID)
}

// readingPreviewTimeout is the kernel's deadline for one tool/preview call.
const readingPreviewTimeout = "plan.preview_timeout_ms"

// undeclaredPreviewDeadline holds a kernel that declares no
// plan.preview_timeout_ms. The spec bounds a preview only by "the ordinary
// per-RPC deadline" and gives that no value, so the suite takes the longest
// deadline it can wait out inside a scenario; a kernel with a longer one
// declares it. Never zero: silence earns no free pass.
const undeclaredPreviewDeadline = 10 * time.Second

// previewDeadlineOf is the deadline the kernel's previews are held to, or
// an error naming a declaration that is not a positive number.
func (p *planArea) previewDeadlineOf() (time.Duration, error) {
	v, ok := p.s.env.Info.Readings[readingPreviewTimeout]
	if !ok || v == "" {
		return undeclaredPreviewDeadline, nil
	}
	ms, err := strconv.Atoi(v)
	if err != nil || ms <= 0 {
		return 0, fmt.Errorf("the kernel declares %s = %q, which is not a positive number of milliseconds", readingPreviewTimeout, v)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// previewSlack is the allowance on top of the deadline: the harness times
// the wait from its own arrival times, which trail the kernel's timer by
// transit and by however long a busy machine keeps the kernel from
// running, so the margin is the larger of 5 s and the deadline itself,
// stretched by the run's timeout multiplier (1 s let a correct kernel be
// blamed at load 20 on 2 cores, 3 s at load 40: its permission request
// came 5.1 s after a 2 s deadline's preview request). A kernel that keeps
// a longer deadline than it declares, or the undeclared 10 s, still fails
// past it; a kernel that waits for the hanging preview fails by order,
// whatever the load.
func (p *planArea) previewSlack(d time.Duration) time.Duration {
	return p.s.env.Scale(max(5*time.Second, d))
}

// PA-12: a hanging preview delays the permission request by no more than
// the preview's own deadline.
func (p *planArea) previewDeadline(tool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	deadline, err := p.previewDeadlineOf()
	if err != nil {
		return err
	}
	a, err := p.firstAsked(tool)
	if err != nil {
		return err
	}
	e, asked := s.previewRequest(a.item.ToolCallID)
	if !asked {
		return notReached("the kernel never asked for the preview of %q, so it did not wait for it", tool)
	}
	slack := p.previewSlack(deadline)
	if waited := a.entry.Start.Sub(e.Start); waited > deadline+slack {
		return fmt.Errorf("the permission request about %q came %v after its preview request, past the kernel's preview deadline of %v (%s) plus %v of slack",
			tool, waited.Round(time.Millisecond), deadline, p.previewDeadlineSource(), slack)
	}
	if e.Answered() && e.Err == "" && e.EndSeq < a.entry.Seq {
		return fmt.Errorf("the kernel waited for the hanging preview of %q until the harness answered it (#%d) instead of giving up at its deadline of %v", tool, e.EndSeq, deadline)
	}
	return nil
}

func (p *planArea) previewDeadlineSource() string {
	if v := p.s.env.Info.Readings[readingPreviewTimeout]; v != "" {
		return readingPreviewTimeout + " = " + v
	}
	return readingPreviewTimeout + " not declared"
}

func (p *planArea) noErrorEvent() error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	for _, kind := range []string{wire.EventError, wire.EventToolError} {
		if es := p.s.eventEntries(p.s.SessionID, kind); len(es) > 0 {
			return fmt.Errorf("expected no %s event, the kernel reported one (#%d): %s", kind, es[0].Seq, plain.JSON(es[0].Value.(wire.Event).Payload))
		}
	}
	return nil
}

// PA-13: what the human sees is what the tool declared when the plan was
// built, and the preview the tool gave then.
func (p *planArea) snapshot(tool string) error {
	s := p.s
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	t, err := p.tool(tool)
	if err != nil {
		return err
	}
	a, err := p.firstAsked(tool)
	if err != nil {
		return err
	}
	it := a.item
	if name, got, want, differs := undeclared(it, t); differs {
		return fmt.Errorf("the permission request (#%d) about %q says %s %q, the tool declared %q", a.entry.Seq, tool, name, got, want)
	}
	for _, e := range s.requests() {
		v, ok := e.Value.(wire.ToolPreviewParams)
		if !ok || v.CallID != it.ToolCallID || len(e.Result) == 0 {
			continue
		}
		var r wire.ToolPreviewResult
		_ = json.Unmarshal(e.Result, &r)
		if it.Preview == nil || *it.Preview != r.Preview {
			got := "none"
			if it.Preview != nil {
				got = strconv.Quote(*it.Preview)
			}
			return fmt.Errorf("the tool gave the preview %q (#%d), the permission request (#%d) carries %s", r.Preview, e.Seq, a.entry.Seq, got)
		}
	}
	return p.rowSnapshot(a)
}

// undeclared names the first of a plan item's kind, risk and description
// that differs from what its tool declares (PA-13's snapshot).
func undeclared(it wire.PlanItem, t *wire.ToolSchema) (name, got, want string, differs bool) {
	for _, f := range []struct{ name, got, want string }{
		{"kind", it.Kind, t.Kind}, {"risk", it.Risk, t.Risk}, {"description", it.Description, t.Description},
	} {
		if f.got != f.want {
			return f.name, f.got, f.want, true
		}
	}
	return "", "", "", false
}

// rowSnapshot: the item's plan_item row holds the same snapshot as the
// permission request, its preview included (the row carries the PlanItem
// fields, PROTOCOL.md event kinds). A kernel that wrote no row is PA-14's to
// judge.
func (p *planArea) rowSnapshot(a askedItem) error {
	it := a.item
	for _, e := range p.s.eventEntries(p.s.SessionID, wire.EventPlanItem) {
		ev := e.Value.(wire.Event)
		if payloadString(ev, "tool_call_id") != it.ToolCallID {
			continue
		}
		for _, f := range []struct{ name, got, want string }{
			{"kind", payloadString(ev, "kind"), it.Kind}, {"risk", payloadString(ev, "risk"), it.Risk}, {"description", payloadString(ev, "description"), it.Description},
		} {
			if f.got != f.want {
				return fmt.Errorf("the plan_item row #%d of %q says %s %q, the permission request (#%d) about it says %q", e.Seq, it.Tool, f.name, f.got, a.entry.Seq, f.want)
			}
		}
		if it.Preview != nil {
			if got, ok := ev.Payload["preview"].(string); !ok || got != *it.Preview {
				return fmt.Errorf("the plan_item row #%d of %q carries preview %s, the permission request (#%d) about it carries %q: the row is the item's snapshot, its preview included", e.Seq, it.Tool, plain.JSON(ev.Payload["preview"]), a.entry.Seq, *it.Preview)
			}
		}
	}
	return nil
}
