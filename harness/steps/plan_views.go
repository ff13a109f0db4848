package steps

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/google/go-cmp/cmp"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

func decodeObject(raw []byte) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return m
}

func compact(raw []byte) string {
	if len(raw) == 0 {
		return "null"
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return cmp.Equal(x, y)
}

// sessionRequests are one session's requests in arrival order.
func (s *Scenario) sessionRequests(session string) []calllog.Entry {
	return s.World.Log.Select(func(e *calllog.Entry) bool {
		return e.Kind == calllog.Request && e.SessionID == session
	})
}

// permissionItems are the items of one session's permission requests, with
// the request that carried each.
type askedItem struct {
	item  wire.PlanItem
	entry calllog.Entry
}

func (s *Scenario) permissionItems(session string) []askedItem {
	var out []askedItem
	for _, e := range s.sessionRequests(session) {
		if v, ok := e.Value.(wire.PermissionParams); ok {
			for _, it := range v.Items {
				out = append(out, askedItem{it, e})
			}
		}
	}
	return out
}

// modelCalls are the tool calls the fake model emitted to the root
// session, in order.
func (s *Scenario) modelCalls() []wire.StreamEvent {
	var out []wire.StreamEvent
	for _, e := range s.requests() {
		if e.Method != wire.MethodModelStream {
			continue
		}
		var r wire.ModelStreamResult
		_ = json.Unmarshal(e.Result, &r)
		for _, ev := range r.Events {
			if ev.Type == wire.EventToolCall {
				out = append(out, ev)
			}
		}
	}
	return out
}

func (s *Scenario) callIDsOf(tool string) []string {
	var ids []string
	for _, c := range s.modelCalls() {
		if c.Name == tool {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// eventEntries are one session's events of a kind, as recorded.
func (s *Scenario) eventEntries(session, kind string) []calllog.Entry {
	return s.World.Log.Select(func(e *calllog.Entry) bool {
		ev, ok := e.Value.(wire.Event)
		return ok && ev.SessionID == session && ev.Kind == kind
	})
}

func payloadString(ev wire.Event, key string) string {
	v, _ := ev.Payload[key].(string)
	return v
}

// Checks.

func (p *planArea) askedTimes(session, tool string, n int) error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	if session == "" {
		return errors.New("the second session has not run (add \"a second session runs under the same profile\")")
	}
	var at []string
	for _, a := range p.s.permissionItems(session) {
		if a.item.Tool == tool {
			at = append(at, fmt.Sprintf("#%d", a.entry.Seq))
		}
	}
	if len(at) != n {
		return fmt.Errorf("expected the frontend to be asked about %q %s in session %s, it was asked %s", tool, plain.Count(n, "time"), session, asked(at))
	}
	return nil
}

func (p *planArea) neverAsked(list string) error {
	for _, t := range quotedList(list) {
		if err := p.askedTimes(p.s.SessionID, t, 0); err != nil {
			return err
		}
	}
	return nil
}

func (p *planArea) noRequest(method string) error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	for _, e := range p.s.requests() {
		if e.Method == method {
			return fmt.Errorf("expected no %s request, the kernel sent %q (#%d)", method, e.Label, e.Seq)
		}
	}
	return nil
}

func (p *planArea) batched(a, b string) error {
	if err := p.s.mustHaveRun(); err != nil {
		return err
	}
	var seen []string
	for _, e := range p.s.requests() {
		v, ok := e.Value.(wire.PermissionParams)
		if !ok {
			continue
		}
		var tools []string
		for _, it := range v.Items {
			tools = append(tools, it.Tool)
		}
		if slices.Contains(tools, a) && slices.Contains(tools, b) {
			return nil
		}
		seen = append(seen, fmt.Sprintf("#%d %v", e.Seq, tools))
	}
	return fmt.Errorf("expected one permission request asking about both %q and %q; the kernel sent %s", a, b, plain.And(seen))
}

// turnID is the id the kernel gave turn n (from its context/assemble).
func (s *Scenario) turnID(n int) (string, error) {
	ts := s.turns()
	if n < 1 || n >= len(ts) || len(ts[n]) == 0 {
		return "", fmt.Errorf("expected a turn %d, the kernel ran %d turns", n, len(ts)-1)
	}
	return ts[n][0].TurnID, nil
}

// planRowsOf are the plan_item events of one turn of the root session.
func (s *Scenario) planRowsOf(turn string) []calllog.Entry {
	var out []calllog.Entry
	for _, e := range s.eventEntries(s.SessionID, wire.EventPlanItem) {
		ev := e.Value.(wire.Event)
		if ev.TurnID == turn || payloadString(ev, "turn_id") == turn {
			out = append(out, e)
		}
	}
	return out
}

// resourceCallsOf are the resource tool calls of turn n's model reply.
func (s *Scenario) resourceCallsOf(n int) []wire.StreamEvent {
	var out []wire.StreamEvent
	for _, e := range s.turns()[n] {
		if e.Method != wire.MethodModelStream {
			continue
		}
		var r wire.ModelStreamResult
		_ = json.Unmarshal(e.Result, &r)
		for _, ev := range r.Events {
			if ev.Type == wire.EventToolCall && s.kindOf(ev.Name) == wire.KindResource {
				out = append(out, ev)
			}
		}
	}
	return out
}

// reachedModelRequest is model request n, or a not-reached outcome when the
// session ended before the kernel made it: what the check reads never
// happened, and the checks of the session's end judge why.
func (s *Scenario) reachedModelRequest(nth string) (wire.ModelStreamParams, error) {
	if err := s.mustHaveRun(); err != nil {
		return wire.ModelStreamParams{}, err
	}
	n, err := ordinal(nth)
	if err != nil {
		return wire.ModelStreamParams{}, err
	}
	if got := len(s.modelRequests()); n > got {
		return wire.ModelStreamParams{}, notReached("the kernel made %d model request(s), so there is no model request %d to read", got, n)
	}
	return s.modelRequest(nth)
}

// asked says how often the frontend was asked and at which entries ("#12"):
// "0 times", "3 times (#12, #26 and #40)".
func asked(at []string) string {
	if len(at) == 0 {
		return "0 times"
	}
	return plain.Count(len(at), "time") + " (" + plain.And(at) + ")"
}
