package hooks

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/refkernel/trace"
	"github.com/agentconform/conform/spec/wire"
)

type behaviour func(ctx context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error)

// fakeHost scripts each subscriber and records what it saw.
type fakeHost struct {
	mu       sync.Mutex
	log      []string
	payloads map[string]wire.HookPayload
	events   []wire.Event
	spans    []wire.Span
	script   map[string]behaviour
}

func newFake(script map[string]behaviour) *fakeHost {
	return &fakeHost{payloads: map[string]wire.HookPayload{}, script: script}
}

func (f *fakeHost) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log = append(f.log, s)
}

func (f *fakeHost) Hook(ctx context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
	f.mu.Lock()
	f.log = append(f.log, "start "+p.Subscriber)
	f.payloads[p.Subscriber] = p.Payload
	f.mu.Unlock()
	defer f.record("end " + p.Subscriber)
	if b := f.script[p.Subscriber]; b != nil {
		return b(ctx, p)
	}
	return ack(ctx, p)
}

func (f *fakeHost) Notify(method string, params any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch v := params.(type) {
	case wire.Event:
		f.events = append(f.events, v)
	case wire.Span:
		f.spans = append(f.spans, v)
	}
}

func (f *fakeHost) logged() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.log)
}

func (f *fakeHost) hookErrors() []wire.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []wire.Event
	for _, e := range f.events {
		if e.Kind == wire.EventHookError {
			out = append(out, e)
		}
	}
	return out
}

func ack(context.Context, wire.HookDispatchParams) (wire.HookDispatchResult, error) {
	return wire.HookDispatchResult{Outcome: wire.OutcomeAck}, nil
}

func appendText(text string) behaviour {
	return func(_ context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
		next := p.Payload
		next.Messages = append(slices.Clone(next.Messages), wire.Message{Role: "user", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: text}}})
		return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &next}, nil
	}
}

func decide(d string) behaviour {
	return func(context.Context, wire.HookDispatchParams) (wire.HookDispatchResult, error) {
		return wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: d, Reason: "because"}, nil
	}
}

func fail(code int) behaviour {
	return func(context.Context, wire.HookDispatchParams) (wire.HookDispatchResult, error) {
		return wire.HookDispatchResult{}, &host.Error{Code: code, Message: "scripted failure"}
	}
}

// violation is what the wire transport returns for an answer that fails the
// result schema.
func violation(context.Context, wire.HookDispatchParams) (wire.HookDispatchResult, error) {
	return wire.HookDispatchResult{}, &jsonrpc.Violation{What: "hook/dispatch result: at /: missing property payload"}
}

// hang waits for the kernel to give up on the call.
func hang(ctx context.Context, _ wire.HookDispatchParams) (wire.HookDispatchResult, error) {
	<-ctx.Done()
	return wire.HookDispatchResult{}, ctx.Err()
}

func sub(id, point, mode string) wire.Subscriber {
	return wire.Subscriber{ID: id, Point: point, Mode: mode}
}

func dispatch(t *testing.T, f *fakeHost, point string, h wire.Hooks) (Outcome, error) {
	t.Helper()
	return Standard{}.Dispatch(context.Background(), Env{Host: f, Tracer: trace.Noop{}}, Request{
		Point:       point,
		Payload:     wire.HookPayload{Model: "m", Messages: []wire.Message{{Role: "user", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: "hi"}}}}},
		CallContext: wire.CallContext{SessionID: "s", TurnID: "t"},
		Hooks:       h,
	})
}

func texts(p wire.HookPayload) []string {
	var out []string
	for _, m := range p.Messages {
		out = append(out, m.Content[0].Text)
	}
	return out
}

func TestDeclarationOrderAndPayloadFlow(t *testing.T) {
	f := newFake(map[string]behaviour{"T1": appendText("A"), "T2": appendText("B"), "V1": decide(wire.DecisionAllow)})
	h := wire.Hooks{Subscribers: []wire.Subscriber{
		sub("T1", wire.PointPreModelCall, wire.ModeTransform),
		sub("O1", wire.PointPreModelCall, wire.ModeObserve),
		sub("X", wire.PointPostApply, wire.ModeObserve), // another point: never called here
		sub("T2", wire.PointPreModelCall, wire.ModeTransform),
		sub("V1", wire.PointPreModelCall, wire.ModeVeto),
		sub("O2", wire.PointPreModelCall, wire.ModeObserve),
	}}
	out, err := dispatch(t, f, wire.PointPreModelCall, h)
	if err != nil || out.Denied {
		t.Fatalf("out %+v, err %v", out, err)
	}
	want := []string{"start T1", "end T1", "start O1", "end O1", "start T2", "end T2", "start V1", "end V1", "start O2", "end O2"}
	if got := f.logged(); !slices.Equal(got, want) {
		t.Fatalf("order %v", got)
	}
	if got := texts(f.payloads["O1"]); !slices.Equal(got, []string{"hi", "A"}) {
		t.Errorf("O1 saw %v", got)
	}
	if got := texts(out.Payload); !slices.Equal(got, []string{"hi", "A", "B"}) {
		t.Errorf("final messages %v", got)
	}
	if f.payloads["T1"].Variant != wire.PointPreModelCall {
		t.Errorf("variant %q", f.payloads["T1"].Variant)
	}
}

func TestTransformFailureAborts(t *testing.T) {
	changeModel := func(_ context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
		next := p.Payload
		next.Model = "other"
		return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &next}, nil
	}
	reencode := func(_ context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
		next := p.Payload
		next.Messages = nil // messages are immutable outside pre-model-call
		return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &next}, nil
	}
	cases := []struct {
		name     string
		point    string
		b        behaviour
		category string
	}{
		{"error", wire.PointPreModelCall, fail(wire.CodeHookFailed), wire.HookErrTransformFailed},
		{"crash", wire.PointPreModelCall, fail(wire.CodeProcessCrashed), wire.HookErrProcessCrashed},
		{"timeout", wire.PointPreModelCall, hang, wire.HookErrTimeout},
		{"ack instead of transform", wire.PointPreModelCall, ack, wire.HookErrInvalidResponse},
		{"changes model", wire.PointPreModelCall, changeModel, wire.HookErrInvalidResponse},
		{"changes messages elsewhere", wire.PointPostModelResponse, reencode, wire.HookErrInvalidResponse},
		{"answer breaks the schema", wire.PointPreModelCall, violation, wire.HookErrInvalidResponse},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(map[string]behaviour{"T1": c.b})
			h := wire.Hooks{DefaultTimeoutMS: timeoutMS(c.category), Subscribers: []wire.Subscriber{
				sub("T1", c.point, wire.ModeTransform),
				sub("O1", c.point, wire.ModeObserve),
			}}
			_, err := dispatch(t, f, c.point, h)
			var abort *AbortError
			if !errors.As(err, &abort) || abort.Category != c.category || abort.Subscriber != "T1" {
				t.Fatalf("err = %v, want AbortError %s", err, c.category)
			}
			if slices.Contains(f.logged(), "start O1") {
				t.Error("chain went on after the abort")
			}
			evs := f.hookErrors()
			if len(evs) != 1 || evs[0].Producer != "T1" || evs[0].Payload["category"] != c.category || evs[0].Payload["mode"] != wire.ModeTransform {
				t.Fatalf("hook_error events %+v", evs)
			}
		})
	}
}

// answersMS is the timeout of a subscriber the test expects to answer: far
// past any delay a loaded machine adds (a 20 ms default turned a transform
// that answered into a timed-out one at load 40). Only a subscriber meant
// to time out gets 20 ms.
const answersMS = 60_000

// timeoutMS is the default timeout of a case expecting category.
func timeoutMS(category string) int {
	if category == wire.HookErrTimeout {
		return 20
	}
	return answersMS
}

func TestTransformMayReencode(t *testing.T) {
	// A subscriber at a point with no mutable field may echo the payload.
	echo := func(_ context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
		next := p.Payload
		return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &next}, nil
	}
	f := newFake(map[string]behaviour{"T": echo})
	_, err := dispatch(t, f, wire.PointPostToolCall, wire.Hooks{Subscribers: []wire.Subscriber{sub("T", wire.PointPostToolCall, wire.ModeTransform)}})
	if err != nil {
		t.Fatal(err)
	}
}

func TestVetoFailsClosed(t *testing.T) {
	transformAnswer := func(_ context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
		next := p.Payload
		return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &next}, nil
	}
	cases := []struct {
		name     string
		b        behaviour
		category string // "" for a plain deny, which is no error
	}{
		{"deny", decide(wire.DecisionDeny), ""},
		{"unspecified", decide(wire.DecisionUnspecified), wire.HookErrInvalidResponse},
		{"wrong outcome", transformAnswer, wire.HookErrInvalidResponse},
		{"error", fail(wire.CodeHookFailed), wire.HookErrVetoFailed},
		{"crash", fail(wire.CodeProcessCrashed), wire.HookErrProcessCrashed},
		{"timeout", hang, wire.HookErrTimeout},
		{"answer breaks the schema", violation, wire.HookErrInvalidResponse},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(map[string]behaviour{"V1": c.b, "V2": decide(wire.DecisionAllow)})
			h := wire.Hooks{DefaultTimeoutMS: timeoutMS(c.category), Subscribers: []wire.Subscriber{
				sub("V1", wire.PointPlanReady, wire.ModeVeto),
				sub("V2", wire.PointPlanReady, wire.ModeVeto),
				sub("O3", wire.PointPlanReady, wire.ModeObserve),
			}}
			out, err := dispatch(t, f, wire.PointPlanReady, h)
			if err != nil || !out.Denied || out.DeniedBy != "V1" {
				t.Fatalf("out %+v, err %v", out, err)
			}
			if got := f.logged(); slices.Contains(got, "start V2") || slices.Contains(got, "start O3") {
				t.Errorf("chain went on after a deny: %v", got)
			}
			evs := f.hookErrors()
			if c.category == "" {
				if len(evs) != 0 {
					t.Errorf("plain deny reported as error: %+v", evs)
				}
				return
			}
			if len(evs) != 1 || evs[0].Producer != "V1" || evs[0].Payload["category"] != c.category {
				t.Fatalf("hook_error events %+v", evs)
			}
		})
	}
}

func TestObserveFailuresAreHarmless(t *testing.T) {
	veto := func(ctx context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
		return decide(wire.DecisionDeny)(ctx, p)
	}
	cases := []struct {
		name     string
		b        behaviour
		category string
	}{
		{"error", fail(wire.CodeHookFailed), wire.HookErrUnknown},
		{"crash", fail(wire.CodeProcessCrashed), wire.HookErrProcessCrashed},
		{"timeout", hang, wire.HookErrTimeout},
		{"veto answer", veto, wire.HookErrInvalidResponse},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(map[string]behaviour{"T1": appendText("A"), "O": c.b, "T2": appendText("B")})
			h := wire.Hooks{Subscribers: []wire.Subscriber{
				sub("T1", wire.PointPreModelCall, wire.ModeTransform),
				{ID: "O", Point: wire.PointPreModelCall, Mode: wire.ModeObserve, TimeoutMS: 20},
				sub("T2", wire.PointPreModelCall, wire.ModeTransform),
			}}
			out, err := dispatch(t, f, wire.PointPreModelCall, h)
			if err != nil || out.Denied {
				t.Fatalf("out %+v, err %v", out, err)
			}
			if got := texts(f.payloads["T2"]); !slices.Equal(got, []string{"hi", "A"}) {
				t.Errorf("T2 saw %v", got)
			}
			evs := f.hookErrors()
			if len(evs) != 1 || evs[0].Producer != "O" || evs[0].Payload["mode"] != wire.ModeObserve || evs[0].Payload["category"] != c.category {
				t.Fatalf("hook_error events %+v", evs)
			}
		})
	}
}

func TestPerSubscriberTimeoutOverridesDefault(t *testing.T) {
	// Both subscribers finish only when released; the short one times out
	// and the long one is released once that has happened.
	release := make(chan struct{})
	wait := func(ctx context.Context, _ wire.HookDispatchParams) (wire.HookDispatchResult, error) {
		select {
		case <-release:
			return wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionAllow}, nil
		case <-ctx.Done():
			return wire.HookDispatchResult{}, ctx.Err()
		}
	}
	f := newFake(map[string]behaviour{"short": wait, "long": func(ctx context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
		close(release)
		return wait(ctx, p)
	}})
	h := wire.Hooks{DefaultTimeoutMS: 20, Subscribers: []wire.Subscriber{
		sub("short", wire.PointPostApply, wire.ModeObserve),
		{ID: "long", Point: wire.PointPostApply, Mode: wire.ModeVeto, TimeoutMS: 60_000},
	}}
	out, err := dispatch(t, f, wire.PointPostApply, h)
	if err != nil || out.Denied {
		t.Fatalf("out %+v, err %v", out, err)
	}
	evs := f.hookErrors()
	if len(evs) != 1 || evs[0].Producer != "short" || evs[0].Payload["category"] != wire.HookErrTimeout {
		t.Fatalf("events %+v", evs)
	}
}

func TestTimeoutHoldsAgainstHostIgnoringContext(t *testing.T) {
	stuck := make(chan struct{})
	defer close(stuck)
	f := newFake(map[string]behaviour{"V": func(context.Context, wire.HookDispatchParams) (wire.HookDispatchResult, error) {
		<-stuck
		return wire.HookDispatchResult{}, nil
	}})
	out, err := dispatch(t, f, wire.PointPlanReady, wire.Hooks{Subscribers: []wire.Subscriber{
		{ID: "V", Point: wire.PointPlanReady, Mode: wire.ModeVeto, TimeoutMS: 20},
	}})
	if err != nil || !out.Denied {
		t.Fatalf("out %+v, err %v", out, err)
	}
}

func TestAdjacentObserversRunConcurrently(t *testing.T) {
	var started sync.WaitGroup
	started.Add(3)
	all := make(chan struct{})
	go func() { started.Wait(); close(all) }()
	barrier := func(ctx context.Context, _ wire.HookDispatchParams) (wire.HookDispatchResult, error) {
		started.Done()
		select {
		case <-all:
			return wire.HookDispatchResult{Outcome: wire.OutcomeAck}, nil
		case <-ctx.Done():
			return wire.HookDispatchResult{}, ctx.Err()
		}
	}
	f := newFake(map[string]behaviour{"O1": barrier, "O2": barrier, "O3": barrier})
	h := wire.Hooks{DefaultTimeoutMS: 5000, Subscribers: []wire.Subscriber{
		sub("O1", wire.PointSessionStart, wire.ModeObserve),
		sub("O2", wire.PointSessionStart, wire.ModeObserve),
		sub("O3", wire.PointSessionStart, wire.ModeObserve),
	}}
	if _, err := dispatch(t, f, wire.PointSessionStart, h); err != nil {
		t.Fatal(err)
	}
	if evs := f.hookErrors(); len(evs) != 0 {
		t.Fatalf("observers did not overlap: %+v", evs)
	}
}

func TestObserverNeverAheadOfTransform(t *testing.T) {
	for _, observer := range []struct {
		name string
		b    behaviour
	}{{"acks", ack}, {"fails", fail(wire.CodeHookFailed)}, {"hangs", hang}} {
		t.Run(observer.name, func(t *testing.T) {
			f := newFake(map[string]behaviour{"T1": appendText("A"), "O": observer.b, "T2": appendText("B")})
			h := wire.Hooks{DefaultTimeoutMS: answersMS, Subscribers: []wire.Subscriber{
				sub("T1", wire.PointPreModelCall, wire.ModeTransform),
				{ID: "O", Point: wire.PointPreModelCall, Mode: wire.ModeObserve, TimeoutMS: 20},
				sub("T2", wire.PointPreModelCall, wire.ModeTransform),
			}}
			if _, err := dispatch(t, f, wire.PointPreModelCall, h); err != nil {
				t.Fatal(err)
			}
			log := f.logged()
			if !(slices.Index(log, "end T1") < slices.Index(log, "start O") && slices.Index(log, "start O") < slices.Index(log, "start T2")) {
				t.Fatalf("order %v", log)
			}
			// A hanging observer is abandoned at its deadline; the fake may
			// log its own end later, but only then.
			if observer.name != "hangs" && slices.Index(log, "end O") > slices.Index(log, "start T2") {
				t.Fatalf("T2 started while O was running: %v", log)
			}
			if got := texts(f.payloads["O"]); !slices.Equal(got, []string{"hi", "A"}) {
				t.Errorf("O saw %v", got)
			}
			if got := texts(f.payloads["T2"]); !slices.Equal(got, []string{"hi", "A"}) {
				t.Errorf("T2 saw %v", got)
			}
		})
	}
}

func TestCancellationIsNotASubscriberFailure(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := newFake(map[string]behaviour{"T": func(c context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
		cancel()
		return hang(c, p)
	}})
	_, err := Standard{}.Dispatch(ctx, Env{Host: f, Tracer: trace.Noop{}}, Request{
		Point: wire.PointPreModelCall,
		Hooks: wire.Hooks{Subscribers: []wire.Subscriber{sub("T", wire.PointPreModelCall, wire.ModeTransform)}},
	})
	var abort *AbortError
	if !errors.Is(err, context.Canceled) || errors.As(err, &abort) {
		t.Fatalf("err = %v", err)
	}
	if evs := f.hookErrors(); len(evs) != 0 {
		t.Fatalf("cancellation reported as hook_error: %+v", evs)
	}
}

func TestSpansOnePerSubscriberCalled(t *testing.T) {
	f := newFake(map[string]behaviour{"V1": decide(wire.DecisionDeny)})
	tr := trace.New(trace.Settings{Enabled: true, SessionID: "s", Notifier: f})
	defer tr.Shutdown(context.Background())
	_, err := Standard{}.Dispatch(context.Background(), Env{Host: f, Tracer: tr}, Request{
		Point:       wire.PointPlanReady,
		CallContext: wire.CallContext{SessionID: "s", TurnID: "t1"},
		Hooks: wire.Hooks{Subscribers: []wire.Subscriber{
			sub("V1", wire.PointPlanReady, wire.ModeVeto),
			sub("V2", wire.PointPlanReady, wire.ModeVeto),
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.spans) != 2 {
		t.Fatalf("spans %+v", f.spans)
	}
	child, parent := f.spans[0], f.spans[1]
	if parent.Role != wire.RoleHookDispatch || child.Role != wire.RoleHookSubscribe || child.ParentSpanID != parent.SpanID ||
		child.TurnID != "t1" || child.Attributes[AttrSubscriber] != "V1" {
		t.Fatalf("parent %+v child %+v", parent, child)
	}
}

func TestValidate(t *testing.T) {
	ok := sub("a", wire.PointPreModelCall, wire.ModeObserve)
	cases := []struct {
		name string
		subs []wire.Subscriber
		want string
	}{
		{"unsupported point", []wire.Subscriber{{ID: "fh", Point: wire.PointPreModelCall, Mode: wire.ModeObserve, SupportedPoints: []string{wire.PointPostToolCall}}}, `hook "fh"`},
		{"unknown point", []wire.Subscriber{sub("x", "mid-turn", wire.ModeObserve)}, "unknown hook point"},
		{"unknown mode", []wire.Subscriber{sub("x", wire.PointPostApply, "audit")}, "unknown mode"},
		{"same id twice at one point", []wire.Subscriber{ok, ok}, "twice"},
		{"context-assemble", []wire.Subscriber{sub("x", wire.PointContextAssemble, wire.ModeObserve)}, "context-assemble"},
		{"missing id", []wire.Subscriber{sub("", wire.PointPostApply, wire.ModeObserve)}, "missing id"},
		{"negative timeout", []wire.Subscriber{{ID: "x", Point: wire.PointPostApply, Mode: wire.ModeObserve, TimeoutMS: -1}}, "timeout"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Standard{}.Validate(wire.Hooks{Subscribers: c.subs})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
	good := wire.Hooks{DefaultTimeoutMS: 100, Subscribers: []wire.Subscriber{
		ok,
		{ID: "b", Point: wire.PointPlanReady, Mode: wire.ModeVeto, SupportedPoints: []string{wire.PointPlanReady}, ThirdParty: true},
		sub("a", wire.PointPostApply, wire.ModeObserve), // one plugin, several points
	}}
	if err := Validate(good); err != nil {
		t.Fatal(err)
	}
}

func TestTimeout(t *testing.T) {
	if Timeout(wire.Subscriber{}, 0) != 0 || Timeout(wire.Subscriber{}, 200) != 200*time.Millisecond ||
		Timeout(wire.Subscriber{TimeoutMS: 1000}, 200) != time.Second {
		t.Fatal("effective timeout")
	}
}
