package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/refkernel"
	"github.com/agentconform/conform/refkernel/ids"
	"github.com/agentconform/conform/refkernel/internal/fakehost"
	"github.com/agentconform/conform/spec/wire"
)

// harness is the other end of the pipe: a connection that serves the
// kernel's requests from a fakehost.Host and validates everything the
// kernel sends against the protocol schemas.
type harness struct {
	conn   *jsonrpc.Conn
	fake   *fakehost.Host
	served chan error

	mu         sync.Mutex
	violations []string
	notes      map[string][]json.RawMessage
	lines      []string // everything the kernel wrote, line by line
}

// tap records what the kernel writes before the harness reads it.
type tap struct {
	r io.Reader
	h *harness
}

func (t tap) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.h.mu.Lock()
	defer t.h.mu.Unlock()
	for _, l := range strings.Split(string(p[:n]), "\n") {
		if l != "" {
			t.h.lines = append(t.h.lines, l)
		}
	}
	return n, err
}

// lineIndex is the index of the first line the kernel wrote containing s.
func (h *harness) lineIndex(s string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, l := range h.lines {
		if strings.Contains(l, s) {
			return i
		}
	}
	return -1
}

func start(t *testing.T, fake *fakehost.Host) *harness {
	t.Helper()
	kin, hout := io.Pipe()
	hin, kout := io.Pipe()
	h := &harness{fake: fake, served: make(chan error, 1), notes: map[string][]json.RawMessage{}}
	h.conn = jsonrpc.New(tap{hin, h}, hout, hout, h.handle, jsonrpc.Options{
		Validate: func(method string, part jsonrpc.Part, raw json.RawMessage) error {
			return wire.Validate(method, part.String(), raw)
		},
		OnViolation: func(v *jsonrpc.Violation) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.violations = append(h.violations, v.Error())
		},
	})
	h.conn.Start()
	k := refkernel.New(refkernel.Parts{}, refkernel.WithIDs(ids.Sequence()))
	go func() {
		h.served <- Serve(context.Background(), k, kin, kout)
		kout.Close()
	}()
	t.Cleanup(func() {
		h.conn.Close()
		select {
		case <-h.served:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after the input ended")
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, v := range h.violations {
			t.Errorf("schema violation by the kernel: %s", v)
		}
	})
	return h
}

func decode[P any](raw json.RawMessage) P {
	var p P
	_ = json.Unmarshal(raw, &p)
	return p
}

func (h *harness) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	f := h.fake
	var (
		res any
		err error
	)
	switch req.Method {
	case wire.MethodContextAssemble:
		res, err = f.Assemble(ctx, decode[wire.ContextAssembleParams](req.Params))
	case wire.MethodHookDispatch:
		res, err = f.Hook(ctx, decode[wire.HookDispatchParams](req.Params))
	case wire.MethodModelStream:
		res, err = f.Stream(ctx, decode[wire.ModelStreamParams](req.Params))
	case wire.MethodToolInvoke:
		res, err = f.Invoke(ctx, decode[wire.ToolInvokeParams](req.Params))
	case wire.MethodToolPreview:
		res, err = f.Preview(ctx, decode[wire.ToolPreviewParams](req.Params))
	case wire.MethodFrontendPermission:
		res, err = f.Permission(ctx, decode[wire.PermissionParams](req.Params))
	case wire.MethodFrontendInteractive:
		res, err = f.Interactive(ctx, decode[wire.InteractiveParams](req.Params))
	default:
		h.mu.Lock()
		h.notes[req.Method] = append(h.notes[req.Method], req.Params)
		h.mu.Unlock()
		return nil, nil
	}
	return res, err
}

func (h *harness) call(t *testing.T, method string, params, result any) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return h.conn.Call(ctx, method, params, result)
}

func (h *harness) init(t *testing.T) wire.InitializeResult {
	t.Helper()
	var res wire.InitializeResult
	if err := h.call(t, wire.MethodInitialize, wire.InitializeParams{
		ProtocolVersions: []string{"conform.wire/v2", wire.Version}, Harness: wire.Peer{Name: "test", Version: "0"},
	}, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

func code(err error) int {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je.Code
	}
	return 0
}

func config() wire.SessionConfig {
	return wire.SessionConfig{
		Profile:   "test",
		Telemetry: true,
		Model:     wire.ModelSpec{Name: "m", SupportsToolUse: true, SupportsParallelToolCalls: true, Pricing: wire.Pricing{Currency: "USD", Tiers: []wire.PricingTier{{InputPerMtok: 1, OutputPerMtok: 2}}}},
		Tools: []wire.ToolSchema{
			{Provider: "fs", Name: "read", Kind: wire.KindDataSource, Risk: "read_only", Concurrency: &wire.ConcurrencySpec{Safe: true}},
			{Provider: "ui", Name: "ask", Kind: wire.KindInteractive, Risk: "read_only"},
			{Provider: "fs", Name: "write", Kind: wire.KindResource, Risk: "low", HasPreview: true},
		},
		Hooks: wire.Hooks{DefaultTimeoutMS: 5000, Subscribers: append(observers(), []wire.Subscriber{
			{ID: "tr", Point: wire.PointPreModelCall, Mode: wire.ModeTransform},
			{ID: "tr2", Point: wire.PointPostToolCall, Mode: wire.ModeTransform},
			{ID: "veto", Point: wire.PointPlanReady, Mode: wire.ModeVeto},
		}...)},
	}
}

// observers puts an observer at every generic point, so that every payload
// variant crosses the wire and meets the schema.
func observers() []wire.Subscriber {
	var subs []wire.Subscriber
	for _, p := range wire.HookPoints {
		if p != wire.PointContextAssemble {
			subs = append(subs, wire.Subscriber{ID: "obs-" + p, Point: p, Mode: wire.ModeObserve})
		}
	}
	return subs
}

func TestInitialize(t *testing.T) {
	h := start(t, &fakehost.Host{})
	err := h.call(t, wire.MethodInitialize, wire.InitializeParams{ProtocolVersions: []string{"other/v9"}}, nil)
	if code(err) != wire.CodeVersionMismatch {
		t.Fatalf("err = %v", err)
	}
	var res wire.RunSessionResult
	if err := h.call(t, wire.MethodSessionRun, wire.RunParams{SessionID: "s", Config: config()}, &res); code(err) != wire.CodeInvalidRequest {
		t.Fatalf("run before initialize: %v", err)
	}
	info := h.init(t)
	if err := h.call(t, wire.MethodInitialize, wire.InitializeParams{ProtocolVersions: []string{wire.Version}, Harness: wire.Peer{}}, nil); code(err) != wire.CodeInvalidRequest {
		t.Fatalf("second initialize: %v", err)
	}
	if info.ProtocolVersion != wire.Version || info.Kernel.Name != "conform-refkernel" || info.Readings["doom_loop.status"] != wire.StatusErrorMaxTurns {
		t.Fatalf("info %+v", info)
	}
}

func TestSessionOverTheWire(t *testing.T) {
	fake := &fakehost.Host{OnModel: func(n int, _ wire.ModelStreamParams) (wire.ModelStreamResult, error) {
		if n == 1 { // no usage event: the payloads still carry zero usage
			return fakehost.Calls(
				fakehost.Call("c1", "read", `{"path":"a"}`),
				fakehost.Call("c2", "ask", `{"prompt":"sure?"}`),
				fakehost.Call("c3", "write", `{"path":"b"}`),
				fakehost.Call("c4", "nosuch", `{}`),
			), nil
		}
		return fakehost.With(fakehost.Text("finished"), fakehost.Usage(2000, 20)), nil
	}}
	h := start(t, fake)
	h.init(t)
	var res wire.RunSessionResult
	if err := h.call(t, wire.MethodSessionRun, wire.RunParams{SessionID: "s1", Prompt: "go", Config: config()}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != wire.StatusCompleted || res.TotalInputTokens != 2000 || res.Turns != 2 {
		t.Fatalf("result %+v", res)
	}
	log := strings.Join(fake.Log(), "\n")
	for _, want := range []string{"invoke read", "interactive ask", "permission write", "preview write", "invoke write", "hook plan-ready veto"} {
		if !strings.Contains(log, want) {
			t.Errorf("no %q in log:\n%s", want, log)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.notes[wire.NotifyTraceSpan]) == 0 || len(h.notes[wire.NotifyCostUsage]) != 1 || len(h.notes[wire.NotifySessionMeta]) != 2 {
		t.Fatalf("notifications: %d spans, %d costs, %d metas", len(h.notes[wire.NotifyTraceSpan]), len(h.notes[wire.NotifyCostUsage]), len(h.notes[wire.NotifySessionMeta]))
	}
}

func TestConfigRejected(t *testing.T) {
	h := start(t, &fakehost.Host{})
	h.init(t)
	cfg := config()
	cfg.Model.Pricing.Tiers = append(cfg.Model.Pricing.Tiers, wire.PricingTier{})
	err := h.call(t, wire.MethodSessionRun, wire.RunParams{SessionID: "s", Config: cfg}, nil)
	if code(err) != wire.CodeConfigRejected {
		t.Fatalf("err = %v", err)
	}
}

func TestCancel(t *testing.T) {
	// The model answers only after the test ends: the session is stuck in
	// model/stream until it is cancelled.
	started, block := make(chan struct{}), make(chan struct{})
	defer close(block)
	h := start(t, &fakehost.Host{OnModel: func(int, wire.ModelStreamParams) (wire.ModelStreamResult, error) {
		close(started)
		<-block
		return fakehost.Text("late"), nil
	}})
	h.init(t)
	if err := h.call(t, wire.MethodSessionCancel, wire.CancelParams{SessionID: "nope"}, nil); code(err) != wire.CodeUnknownSession {
		t.Fatalf("cancel unknown: %v", err)
	}
	done := make(chan wire.RunSessionResult, 1)
	go func() {
		var res wire.RunSessionResult
		_ = h.call(t, wire.MethodSessionRun, wire.RunParams{SessionID: "s1", Config: config()}, &res)
		done <- res
	}()
	<-started
	if err := h.call(t, wire.MethodSessionCancel, wire.CancelParams{SessionID: "s1"}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res.Status != wire.StatusCancelled {
			t.Fatalf("result %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancelled session did not end")
	}
	if err := h.call(t, wire.MethodSessionCancel, wire.CancelParams{SessionID: "s1"}, nil); err != nil {
		t.Fatalf("cancelling an ended session: %v", err)
	}
}

func TestNotImplemented(t *testing.T) {
	h := start(t, &fakehost.Host{})
	h.init(t)
	// session/spawn is served (spawn_test.go): an unknown parent is an
	// unknown session.
	params := wire.SpawnParams{ParentSessionID: "p", CallID: "c", Profile: "x", Prompt: "y"}
	if err := h.call(t, wire.MethodSessionSpawn, params, nil); code(err) != wire.CodeUnknownSession {
		t.Errorf("%s: %v", wire.MethodSessionSpawn, err)
	}
	if err := h.call(t, "no/such", struct{}{}, nil); code(err) != wire.CodeMethodNotFound {
		t.Errorf("unknown method: %v", err)
	}
}

func TestShutdownEndsServe(t *testing.T) {
	// A session stuck in its model call is cancelled by the shutdown and
	// answered before the shutdown is.
	started, never := make(chan struct{}), make(chan struct{})
	h := start(t, &fakehost.Host{OnModel: func(int, wire.ModelStreamParams) (wire.ModelStreamResult, error) {
		close(started)
		<-never // no answer while the test runs; the kernel gives up on it
		return wire.ModelStreamResult{}, errors.New("too late")
	}})
	t.Cleanup(func() { close(never) })
	h.init(t)
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		var res wire.RunSessionResult
		if err := h.call(t, wire.MethodSessionRun, wire.RunParams{SessionID: "s1", Config: config()}, &res); err != nil || res.Status != wire.StatusCancelled {
			t.Errorf("session/run: %+v, %v", res, err)
		}
	}()
	<-started
	if err := h.call(t, wire.MethodShutdown, struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
	<-ran
	if run, shut := h.lineIndex(`"status":"cancelled"`), h.lineIndex(`"result":{}`); run < 0 || run > shut {
		t.Errorf("session/run answered at line %d, shutdown at line %d", run, shut)
	}
	select {
	case err := <-h.served:
		if err != nil {
			t.Fatalf("Serve = %v", err)
		}
		h.served <- err // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after shutdown")
	}
}
