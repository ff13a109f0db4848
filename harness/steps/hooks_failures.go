package steps

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// ---- failures ----

func (s *Scenario) hookEvents(kind string) []wire.Event {
	var out []wire.Event
	for _, ev := range s.World.Events() {
		if ev.SessionID == s.SessionID && (kind == "" || ev.Kind == kind) {
			out = append(out, ev)
		}
	}
	return out
}

// eventsNaming are the session's events of kind ("" any) attributed to
// subscriber id: by producer or by the payload's subscriber.
func (s *Scenario) eventsNaming(kind, id string) []wire.Event {
	var out []wire.Event
	for _, ev := range s.hookEvents(kind) {
		if ev.Producer == id || ev.Payload["subscriber"] == id {
			out = append(out, ev)
		}
	}
	return out
}

// HD-03/HD-04/HD-09/HD-10: the failure is a hook_error naming point, mode
// and category. Who the kernel names as its producer is HD-14's own check
// (hookErrorProducer), so a kernel that reports the right failure under
// the wrong producer fails HD-14 alone.
func (s *Scenario) hookErrorReported(id, point, mode, category string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	// A subscriber the kernel never dispatched never failed: the premise of
	// this check did not occur (the point's own requirement charges a point
	// that is never dispatched), so it is not reached rather than failed.
	dispatched := false
	for _, e := range s.hookRequests() {
		if p := hookParams(e); p.Subscriber == id && p.Point == point {
			dispatched = true
			break
		}
	}
	var seen []string
	for _, ev := range s.hookEvents(wire.EventHookError) {
		p := ev.Payload
		if (ev.Producer == id || p["subscriber"] == id) && p["point"] == point && p["mode"] == mode && p["category"] == category {
			return nil
		}
		seen = append(seen, fmt.Sprintf("producer %q point %s mode %s category %s subscriber %s", ev.Producer, plain.JSON(p["point"]), plain.JSON(p["mode"]), plain.JSON(p["category"]), plain.JSON(p["subscriber"])))
	}
	if !dispatched {
		return notReached("%q was never dispatched at %s, so it never failed there", id, point)
	}
	if len(seen) == 0 {
		return fmt.Errorf("expected a hook_error event from %q (point %s, mode %s, category %s); the kernel reported no hook_error at all", id, point, mode, category)
	}
	return fmt.Errorf("expected a hook_error event of %q (producer or payload subscriber) with point %s, mode %s and category %s; the kernel reported: %s", id, point, mode, category, strings.Join(seen, "; "))
}

// hookErrorCategories are the HookErrorCategory values of PROTOCOL.md §8.4.
var hookErrorCategories = []string{
	wire.HookErrTransformFailed, wire.HookErrVetoFailed, wire.HookErrTimeout,
	wire.HookErrInvalidResponse, wire.HookErrProcessCrashed, wire.HookErrUnknown,
}

// HD-14: the kernel writes the hook_error of a failed transform or veto
// itself, attributed to the subscriber (producer), with a HookError payload
// naming point, subscriber, mode and a known category. A failure the kernel
// did not act on at all (it used the answer) is not HD-14's to judge: the
// requirement of the point, mode or answer fails instead.
func (s *Scenario) hookErrorProducer(id string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	mine := s.eventsNaming(wire.EventHookError, id)
	if len(mine) == 0 {
		acted, why := s.failureActedOn(id)
		if !acted {
			return notReached("the kernel did not treat %q's answer as a failure (%s), so no hook_error of it was due", id, why)
		}
		return fmt.Errorf("the kernel acted on %q's failure (%s) but reported no hook_error attributed to it", id, why)
	}
	for _, ev := range mine {
		p := ev.Payload
		cat, _ := p["category"].(string)
		switch {
		case ev.Producer != id:
			return fmt.Errorf("expected the hook_error of %q to name the subscriber as its producer, it names %q (payload %s)", id, ev.Producer, plain.JSON(p))
		case p["subscriber"] != id:
			return fmt.Errorf("expected the hook_error of %q to name it as the payload's subscriber, it names %s", id, plain.JSON(p["subscriber"]))
		case p["point"] == nil || p["point"] == "" || p["mode"] == nil || p["mode"] == "":
			return fmt.Errorf("expected the hook_error of %q to record point and mode, its payload is %s", id, plain.JSON(p))
		case !slices.Contains(hookErrorCategories, cat):
			return fmt.Errorf("expected the hook_error of %q to carry one of the categories %s, it carries %q", id, strings.Join(hookErrorCategories, ", "), cat)
		}
	}
	return nil
}

// failureActedOn says whether the kernel treated a failing subscriber's
// answer as a failure: for a transform the turn stopped after it, for a
// veto the resource calls of its turn were not applied after it.
func (s *Scenario) failureActedOn(id string) (bool, string) {
	ds := s.hookDispatchesTo(id)
	if len(ds) == 0 {
		return false, "it was never dispatched"
	}
	at := ds[0]
	mode := hookParams(at).Mode
	// The session-end hooks that follow an abort are the session ending,
	// not the turn going on; but where the failing transform is itself at
	// session-end, a later session-end dispatch is its chain going on.
	atEnd := hookParams(at).Point == wire.PointSessionEnd
	for _, e := range s.requests() {
		if e.Seq <= at.Seq || e.TurnID != at.TurnID {
			continue
		}
		switch {
		case mode == wire.ModeVeto && e.Method == wire.MethodToolInvoke && s.kindOf(e.Value.(wire.ToolInvokeParams).Tool) == wire.KindResource:
			return false, fmt.Sprintf("it applied %q (#%d) after the veto", e.Label, e.Seq)
		case mode == wire.ModeTransform && (atEnd || !(e.Method == wire.MethodHookDispatch && hookParams(e).Point == wire.PointSessionEnd)):
			return false, fmt.Sprintf("the turn went on with %q (#%d)", e.Label, e.Seq)
		}
	}
	if mode == wire.ModeVeto {
		return true, "nothing of the plan was applied after it"
	}
	return true, "the turn stopped after it"
}

// HD-02: some record names the observer: a hook_error, a log line,
// any event whose producer or payload subscriber is the subscriber.
func (s *Scenario) recordAttributable(id string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if len(s.eventsNaming("", id)) > 0 {
		return nil
	}
	return fmt.Errorf("expected an event attributable to %q (producer or payload subscriber %q), the kernel reported none", id, id)
}

// HD-03: after an aborted transform the session ends with the
// status the kernel declares (reading hooks.transform_abort_status),
// failed when it declares none.
func (s *Scenario) transformAbortStatus() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	// No transform dispatched, none failed: the status of an aborted
	// transform is not this session's to show (the point's own
	// requirement charges a point never dispatched).
	transformed := false
	for _, e := range s.hookRequests() {
		if hookParams(e).Mode == wire.ModeTransform {
			transformed = true
			break
		}
	}
	if !transformed {
		return notReached("no transform subscriber was dispatched, so no transform failed to abort the session")
	}
	want := s.env.Info.Readings["hooks.transform_abort_status"]
	if want == "" {
		want = wire.StatusFailed
	}
	return s.sessionEndsWith(want)
}

// HD-03/HD-09: nothing of the turn follows the failed dispatch.
func (s *Scenario) turnStoppedAfter(id string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	var at *calllog.Entry
	for _, e := range s.hookRequests() {
		if hookParams(e).Subscriber == id {
			at = &e
			break
		}
	}
	if at == nil {
		return notReached("%q was never dispatched, so there was no failed dispatch to stop after", id)
	}
	for _, e := range s.requests() {
		if e.Seq <= at.Seq || e.TurnID != at.TurnID {
			continue
		}
		if e.Method == wire.MethodHookDispatch && hookParams(e).Point == wire.PointSessionEnd {
			continue
		}
		return fmt.Errorf("expected the turn to stop after %q failed (#%d), the kernel went on with %q (#%d)", id, at.Seq, e.Label, e.Seq)
	}
	return nil
}

func (s *Scenario) noInvokeOf(tool string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if len(s.callIDsOf(tool)) == 0 {
		return notReached("the model's call to %q never reached the kernel's plan, so there was nothing to keep from being applied", tool)
	}
	for _, e := range s.World.Log.Entries() {
		if e.Kind == calllog.Request && e.Method == wire.MethodToolInvoke && e.Label == "invoke "+tool {
			return fmt.Errorf("expected %q never to be applied, the kernel invoked it (#%d)", tool, e.Seq)
		}
	}
	return nil
}

func (s *Scenario) invokeOf(tool string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for _, e := range s.requests() {
		if e.Method == wire.MethodToolInvoke && e.Label == "invoke "+tool {
			return nil
		}
	}
	return fmt.Errorf("expected %q to be applied, the kernel never invoked it", tool)
}

func (s *Scenario) noHookError() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if evs := s.hookEvents(wire.EventHookError); len(evs) > 0 {
		return fmt.Errorf("expected no hook_error, the kernel reported %d (first: producer %q, %s)", len(evs), evs[0].Producer, plain.JSON(evs[0].Payload))
	}
	return nil
}

// HD-04/HD-11: every call of the tool was denied, by the one rule every
// denial check shares (denied): it never ran, and the model got a result
// for it.
func (s *Scenario) denialResults(nth, tool string) error {
	r, err := s.reachedModelRequest(nth)
	if err != nil {
		return err
	}
	var ids []string
	results := map[string]wire.ContentBlock{}
	for _, m := range r.Messages {
		for _, c := range m.Content {
			switch {
			case c.Type == wire.BlockToolUse && c.Name == tool:
				ids = append(ids, c.ID)
			case c.Type == wire.BlockToolResult:
				results[c.ToolUseID] = c
			}
		}
	}
	if len(ids) == 0 {
		return fmt.Errorf("model request %s holds no call of %q to check", nth, tool)
	}
	for _, id := range ids {
		var res *wire.ContentBlock
		if c, ok := results[id]; ok {
			res = &c
		}
		if err := s.denied(id, tool, res, nth); err != nil {
			return err
		}
	}
	return nil
}

// ---- timeouts ----

func (s *Scenario) hookDispatchesTo(id string) []calllog.Entry {
	var out []calllog.Entry
	for _, e := range s.hookRequests() {
		if hookParams(e).Subscriber == id {
			out = append(out, e)
		}
	}
	return out
}

// hookNext is the first request after e that is not part of e's own run of
// concurrently dispatched observers.
func (s *Scenario) hookNext(e calllog.Entry) (calllog.Entry, bool) {
	for _, r := range s.requests() {
		if r.Seq <= e.Seq {
			continue
		}
		if r.Method == wire.MethodHookDispatch && hookParams(r).Mode == wire.ModeObserve && hookParams(e).Mode == wire.ModeObserve &&
			hookParams(r).Point == hookParams(e).Point && r.TurnID == e.TurnID && (!e.Answered() || r.Start.Before(e.End)) {
			continue
		}
		return r, true
	}
	return calllog.Entry{}, false
}

// HD-05: the request carries the effective timeout.
func (s *Scenario) announcedTimeout(id string, ms int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ds := s.hookDispatchesTo(id)
	if len(ds) == 0 {
		return fmt.Errorf("expected dispatches to %q, the kernel sent none", id)
	}
	want := s.scaleMS(ms)
	for _, e := range ds {
		if got := hookParams(e).TimeoutMS; got != want {
			return fmt.Errorf("expected the dispatch to %q (#%d) to announce timeout_ms %d, it announced %d", id, e.Seq, want, got)
		}
	}
	return nil
}

// HD-05: the kernel waited at least the timeout, then went on without the
// subscriber's answer (it cancelled the call, or its next request came
// before the answer). How long it waited is the longer of what its own
// hook_subscriber span for the call shows and what the harness's arrival
// times show; half the timeout is demanded, which catches a kernel that
// gives up at once or on a much shorter timeout and lets no load flip it.
func (s *Scenario) gaveUpOn(id string, ms int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ds := s.hookDispatchesTo(id)
	if len(ds) == 0 {
		return fmt.Errorf("expected dispatches to %q, the kernel sent none", id)
	}
	timeout := time.Duration(s.scaleMS(ms)) * time.Millisecond
	min := hookMinWait(timeout)
	for _, e := range ds {
		n, ok := s.hookNext(e)
		if !ok {
			return fmt.Errorf("the kernel sent nothing after giving %q (#%d) the dispatch", id, e.Seq)
		}
		waited, how := n.Start.Sub(e.Start), "from the request's arrival to the next request"
		if sp, ok := s.subscriberSpan(e); ok {
			if d := time.Duration(sp.EndUnixNano - sp.StartUnixNano); d > waited {
				waited, how = d, "by its own hook_subscriber span"
			}
		}
		if waited < min {
			return fmt.Errorf("expected the kernel to wait %v for %q (#%d) before giving up (at least %v), it went on with %q after %v (%s)",
				timeout, id, e.Seq, min, n.Label, waited.Round(time.Millisecond), how)
		}
		if !hookCancelled(e) && e.Answered() && e.EndSeq < n.Seq {
			return fmt.Errorf("expected the kernel to give up on %q (#%d) at its timeout; it waited for the answer (%v later) and only then sent %q (#%d)",
				id, e.Seq, e.End.Sub(e.Start).Round(time.Millisecond), n.Label, n.Seq)
		}
	}
	return nil
}

// subscriberSpan is the kernel's hook_subscriber span of one dispatch: the
// one that started before the request arrived and ended after, the latest
// starting if several do.
func (s *Scenario) subscriberSpan(e calllog.Entry) (wire.Span, bool) {
	var best wire.Span
	found := false
	at := e.Start.UnixNano()
	for _, sp := range s.spanIndex().role(wire.RoleHookSubscribe) {
		if sp.StartUnixNano <= at+int64(spanSlack) && sp.EndUnixNano >= at && (!found || sp.StartUnixNano > best.StartUnixNano) {
			best, found = sp, true
		}
	}
	return best, found
}

// HD-05: a subscriber with a long enough timeout is answered and waited for.
func (s *Scenario) waitedFor(id string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ds := s.hookDispatchesTo(id)
	if len(ds) == 0 {
		return fmt.Errorf("expected dispatches to %q, the kernel sent none", id)
	}
	for _, e := range ds {
		if !e.Answered() || e.Err != "" {
			return fmt.Errorf("expected the kernel to wait for %q's answer (#%d); the call ended with %q after %v",
				id, e.Seq, e.Err, e.End.Sub(e.Start).Round(time.Millisecond))
		}
		if n, ok := s.hookNext(e); ok && n.Seq < e.EndSeq {
			return fmt.Errorf("expected the kernel to wait for %q's answer (#%d), it sent %q (#%d) first", id, e.Seq, n.Label, n.Seq)
		}
	}
	return nil
}
