package fakes

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

// HookAction is what a fake subscriber does when dispatched.
type HookAction int

const (
	// HookDefault: observe acks, transform echoes the payload, veto allows.
	HookDefault HookAction = iota
	// HookAppend: answers with a transform whose messages gain a user
	// message with Text (whatever the subscriber's mode, so an observer
	// with this action tries to change the payload it may not change).
	HookAppend
	HookAllow
	HookDeny
	HookUnspecified
	// HookError answers with CodeHookFailed.
	HookError
	// HookCrash answers with CodeProcessCrashed.
	HookCrash
	// HookHang holds the call until the kernel cancels it, the scenario
	// ends, or its hang limit (see HangLimit) passes; only then does it
	// answer as HookDefault.
	// The limit keeps a kernel without hook timeouts from hanging the
	// scenario: it simply gets the late answer, and the checks fail.
	HookHang
	// HookWrongOutcome answers with an outcome that does not fit the mode:
	// an observer answers with a veto, a transform with an ack, a veto with
	// a transform.
	HookWrongOutcome
	// HookChangeModel: a transform changes the immutable model field.
	HookChangeModel
	// HookTamper: a transform changes one byte of a field the subscriber
	// may not change (the first string field of the payload other than the
	// variant and the messages; the model at pre-model-call).
	HookTamper
	// HookWrongVariant: a transform answers with the payload relabelled as
	// another point's.
	HookWrongVariant
	// HookMalformed answers with a result that fails the hook/dispatch
	// result schema (a transform outcome without a payload).
	HookMalformed
	// HookDenyNoReason: a veto DENY without a reason, which is optional
	// (PROTOCOL.md §7.2 result table).
	HookDenyNoReason
	// HookWrongOutcomeAllow answers with an outcome that does not fit the
	// mode but carries decision ALLOW: a veto answers ack, an observer or
	// a transform answers veto. A kernel that reads a veto's decision
	// without its outcome takes it for an ALLOW.
	HookWrongOutcomeAllow
	// HookNullResult answers with the JSON-RPC result null: a result, so
	// no error, that fails the result schema (not an object).
	HookNullResult
	// HookRespellEmpty: a transform echoes the payload unchanged, except
	// that at pre-model-call each of the optional lists messages and tools
	// that is empty or absent is spelled the other way: [] or absent
	// becomes null, null becomes absent. PROTOCOL.md §3 and §9 HookPayload:
	// for these arrays "null = absent", so the payload is the same.
	HookRespellEmpty
)

// HangLimit is how long a HookHang subscriber holds a call the kernel never
// gives up on, at least: the hold is hangPast times the timeout the kernel
// announced in the request, when that is longer, up to maxHang.
const HangLimit = 2 * time.Second

const (
	hangPast = 5
	maxHang  = 8 * time.Second
)

// HookBehavior scripts one subscriber.
type HookBehavior struct {
	Action HookAction
	Text   string
	// Gate, when set, holds each call until the gate is opened.
	Gate *Gate
	// Hold delays each answer by this long; a call the kernel cancels
	// meanwhile ends at once with the cancellation.
	Hold time.Duration
	// Barrier, when set, holds each call until the barrier opens.
	Barrier *Barrier
	// GateAfterBarrier: the Gate holds a call only when the Barrier
	// opened; a barrier that timed out (its other party never came, e.g.
	// a kernel without the step the scenario waits for) lets it go, so
	// the harness never holds a kernel for what it did not do.
	GateAfterBarrier bool
	// Limit is how long a HookHang call is held at most; zero means
	// HangLimit. The step library stretches it with the run's timeout
	// multiplier, like the timeouts it must outlast.
	Limit time.Duration
	// OnCall, when set, is told of each call as it arrives, before it is
	// held, so a scenario can act (cancel the session) while it is in
	// flight.
	OnCall func(p wire.HookDispatchParams)
}

// Hooks are the fake hook subscribers, by subscriber id.
type Hooks struct {
	mu sync.Mutex
	by map[string]HookBehavior
}

func newHooks() *Hooks { return &Hooks{by: map[string]HookBehavior{}} }

// Set scripts a subscriber.
func (h *Hooks) Set(id string, b HookBehavior) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.by[id] = b
}

// Get returns a subscriber's script.
func (h *Hooks) Get(id string) HookBehavior {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.by[id]
}

func crashError(msg string) error {
	return &jsonrpc.Error{Code: wire.CodeProcessCrashed, Message: msg}
}

// dispatch answers one hook/dispatch. The answer is a wire.HookDispatchResult
// except for HookMalformed and HookNullResult, whose raw JSON breaks the
// result schema on purpose (PROTOCOL.md §11), and for the echoes of the
// kernel's own payload (the default transform, HookRespellEmpty).
//
// raw is the request's params as the kernel sent them: a transform that
// changes nothing echoes the kernel's payload value for value, so that an
// empty list stays an empty list and a field the Go binding omits when
// empty is not dropped from the kernel's own payload; only the order of
// every object's keys changes (sorted, reordered).
func (h *Hooks) dispatch(ctx context.Context, done <-chan struct{}, p wire.HookDispatchParams, raw json.RawMessage) (any, error) {
	b := h.Get(p.Subscriber)
	if b.OnCall != nil {
		b.OnCall(p)
	}
	if b.Barrier != nil {
		b.Barrier.Arrive(ctx, done)
	}
	if b.Gate != nil && (!b.GateAfterBarrier || b.Barrier == nil || b.Barrier.Opened()) {
		if err := b.Gate.Wait(ctx, done); err != nil {
			return nil, err
		}
	}
	if b.Hold > 0 {
		if err := holdFor(ctx, done, b.Hold); err != nil {
			return nil, err
		}
	}
	switch b.Action {
	case HookHang:
		limit := b.Limit
		if limit <= 0 {
			limit = HangLimit
		}
		// Hold well past the deadline the kernel announced, so that a
		// kernel whose timer a loaded machine delays still gives up first.
		limit = min(max(limit, hangPast*time.Duration(p.TimeoutMS)*time.Millisecond), max(limit, maxHang))
		if err := holdFor(ctx, done, limit); err != nil {
			return nil, err
		}
	case HookError:
		return nil, &jsonrpc.Error{Code: wire.CodeHookFailed, Message: "subscriber " + p.Subscriber + " failed (scripted)"}
	case HookCrash:
		return nil, crashError("subscriber " + p.Subscriber + " exited (scripted)")
	case HookAllow:
		return wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionAllow}, nil
	case HookDeny:
		return wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionDeny, Reason: "denied by " + p.Subscriber}, nil
	case HookUnspecified:
		return wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionUnspecified}, nil
	case HookWrongOutcome:
		switch p.Mode {
		case wire.ModeObserve:
			return wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionAllow}, nil
		case wire.ModeVeto:
			pl := clonePayload(p.Payload)
			return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &pl}, nil
		}
		// A transform's wrong outcome carries the unchanged payload, so
		// that a kernel that takes any answer with a payload for a
		// transform is caught, not only one that needs a payload (the Node
		// kit's check survived its outcome test removed: issue 29).
		pl := clonePayload(p.Payload)
		return wire.HookDispatchResult{Outcome: wire.OutcomeAck, Payload: &pl}, nil
	case HookAppend:
		pl := clonePayload(p.Payload)
		pl.Messages = append(pl.Messages, wire.Message{Role: "user", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: b.Text}}})
		return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &pl}, nil
	case HookChangeModel:
		pl := clonePayload(p.Payload)
		pl.Model = pl.Model + "-other"
		return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &pl}, nil
	case HookTamper:
		pl := tamper(p.Payload)
		return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &pl}, nil
	case HookWrongVariant:
		pl := clonePayload(p.Payload)
		pl.Variant = otherPoint(p.Payload.Variant)
		return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &pl}, nil
	case HookMalformed:
		return json.RawMessage(`{"outcome":"transform"}`), nil
	case HookDenyNoReason:
		return wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionDeny}, nil
	case HookWrongOutcomeAllow:
		if p.Mode == wire.ModeVeto {
			return wire.HookDispatchResult{Outcome: wire.OutcomeAck, Decision: wire.DecisionAllow}, nil
		}
		return wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionAllow}, nil
	case HookNullResult:
		return json.RawMessage(`null`), nil
	case HookRespellEmpty:
		if p.Mode == wire.ModeTransform {
			if pl, ok := respellEmpty(raw); ok {
				return struct {
					Outcome string          `json:"outcome"`
					Payload json.RawMessage `json:"payload"`
				}{wire.OutcomeTransform, pl}, nil
			}
		}
	}
	if p.Mode == wire.ModeTransform {
		var params struct {
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(raw, &params) == nil && len(params.Payload) > 0 {
			return struct {
				Outcome string          `json:"outcome"`
				Payload json.RawMessage `json:"payload"`
			}{wire.OutcomeTransform, reordered(params.Payload)}, nil
		}
	}
	return defaultAnswer(p), nil
}

// reordered is a JSON value with the keys of every object in sorted order,
// every value and number as it was. JSON objects are unordered (RFC 8259
// §4), and a harness may echo a payload in any key order: a kernel that
// checks a transform changed only what it may change must compare values,
// not text. A kernel that sends its keys sorted already is not probed by
// it, but every kit and kernel that builds payloads field by field is (the
// Node kit's comparison was once one .sort() away from failing: issue 29).
func reordered(raw json.RawMessage) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}

// respellEmpty is the payload of the request's params raw, value for
// value as reordered keeps it, with the empty optional lists of a
// pre-model-call payload (messages, tools: "null = absent", PROTOCOL.md §9
// HookPayload) spelled the other way: absent or [] becomes null, null
// becomes absent. Lists of other variants are left as they are: a field of
// another variant is never set, not even to null. ok is false when raw
// holds no payload object.
func respellEmpty(raw json.RawMessage) (json.RawMessage, bool) {
	var params struct {
		Payload json.RawMessage `json:"payload"`
	}
	if json.Unmarshal(raw, &params) != nil {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(params.Payload))
	dec.UseNumber()
	var pl map[string]any
	if dec.Decode(&pl) != nil || pl == nil {
		return nil, false
	}
	if pl["variant"] == wire.PointPreModelCall {
		for _, k := range []string{"messages", "tools"} {
			v, present := pl[k]
			switch list, _ := v.([]any); {
			case present && v == nil:
				delete(pl, k)
			case !present || (list != nil && len(list) == 0):
				pl[k] = nil
			}
		}
	}
	b, err := json.Marshal(pl)
	return b, err == nil
}

func defaultAnswer(p wire.HookDispatchParams) wire.HookDispatchResult {
	switch p.Mode {
	case wire.ModeTransform:
		pl := clonePayload(p.Payload)
		return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &pl}
	case wire.ModeVeto:
		return wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionAllow}
	}
	return wire.HookDispatchResult{Outcome: wire.OutcomeAck}
}

func clonePayload(p wire.HookPayload) wire.HookPayload {
	b, _ := json.Marshal(p)
	var out wire.HookPayload
	_ = json.Unmarshal(b, &out)
	return out
}

// otherPoint is a generic hook point other than p.
func otherPoint(p string) string {
	if p == wire.PointPostApply {
		return wire.PointPreToolCall
	}
	return wire.PointPostApply
}

// tamper changes one byte of an immutable field: the model at
// pre-model-call, else the first string (in sorted key order, depth first)
// outside variant and messages. A payload with no such string gains a
// stop_reason, which is a change as well.
func tamper(p wire.HookPayload) wire.HookPayload {
	if p.Variant == wire.PointPreModelCall {
		out := clonePayload(p)
		out.Model += "!"
		return out
	}
	raw, _ := json.Marshal(p)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	if !tamperFirst(m, true) {
		m["stop_reason"] = "!"
	}
	raw, _ = json.Marshal(m)
	var out wire.HookPayload
	_ = json.Unmarshal(raw, &out)
	return out
}

func tamperFirst(v any, top bool) bool {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			if top && (k == "variant" || k == "messages") {
				continue
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if s, ok := x[k].(string); ok && !slices.Contains(enumFields, k) {
				x[k] = s + "!"
				return true
			}
			if tamperFirst(x[k], false) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if tamperFirst(e, false) {
				return true
			}
		}
	}
	return false
}

// enumFields hold closed value sets; changing one would break the schema
// instead of the immutability rule.
var enumFields = []string{"type", "role", "kind", "risk", "decision", "status", "variant", "category", "error_category"}
