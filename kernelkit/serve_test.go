package kernelkit

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

// blocking is a kernel whose sessions wait until cancelled, after telling
// started; they end with Finish, as a kernel's would.
func blocking(started chan<- string) Kernel {
	return kernelFunc(func(ctx context.Context, h *Host, p wire.RunParams) (wire.RunSessionResult, error) {
		s := NewSession(h, p)
		if err := s.Start(ctx); err != nil {
			return s.Finish(ctx, wire.StatusFailed, nil, err), nil
		}
		started <- p.SessionID
		<-ctx.Done()
		return s.Finish(ctx, wire.StatusCancelled, nil, nil), nil
	})
}

func TestInitialize(t *testing.T) {
	h := startKit(t, blocking(make(chan string, 1)), nil)
	run := wire.RunParams{SessionID: "s", Config: config()}
	if err := h.call(t, wire.MethodSessionRun, run, nil); codeOf(err) != wire.CodeInvalidRequest {
		t.Errorf("session/run before initialize: %v, want %d", err, wire.CodeInvalidRequest)
	}
	err := h.call(t, wire.MethodInitialize, wire.InitializeParams{ProtocolVersions: []string{"conform.wire/v0"}, Harness: wire.Peer{Name: "h", Version: "0"}}, nil)
	if codeOf(err) != wire.CodeVersionMismatch {
		t.Errorf("no shared version: %v, want %d", err, wire.CodeVersionMismatch)
	}
	var info wire.InitializeResult
	if err := h.call(t, wire.MethodInitialize, wire.InitializeParams{ProtocolVersions: []string{"conform.wire/v9", wire.Version}, Harness: wire.Peer{Name: "h", Version: "0"}}, &info); err != nil {
		t.Fatal(err)
	}
	if info.ProtocolVersion != wire.Version || info.Kernel.Name != "kit-test" {
		t.Errorf("initialize answered %+v", info)
	}
	if err := h.call(t, wire.MethodInitialize, wire.InitializeParams{ProtocolVersions: []string{wire.Version}, Harness: wire.Peer{Name: "h", Version: "0"}}, nil); codeOf(err) != wire.CodeInvalidRequest {
		t.Errorf("a second initialize: %v, want %d", err, wire.CodeInvalidRequest)
	}
	if err := h.call(t, "no/such", struct{}{}, nil); codeOf(err) != wire.CodeMethodNotFound {
		t.Errorf("an unknown method: %v, want %d", err, wire.CodeMethodNotFound)
	}
}

// Without the optional interfaces the kit answers as PROTOCOL.md says a
// kernel without them does, for a running, an ended and an unknown
// session.
func TestDefaultsOfTheOptionalParts(t *testing.T) {
	started := make(chan string, 1)
	h := startKit(t, blocking(started), nil)
	h.init(t)
	done := make(chan wire.RunSessionResult, 1)
	go func() {
		var res wire.RunSessionResult
		if err := h.call(t, wire.MethodSessionRun, wire.RunParams{SessionID: "s1", Prompt: "go", Config: config()}, &res); err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-started
	if err := h.call(t, wire.MethodSessionRun, wire.RunParams{SessionID: "s1", Config: config()}, nil); codeOf(err) != wire.CodeInvalidRequest {
		t.Errorf("a second run of a running id: %v, want %d", err, wire.CodeInvalidRequest)
	}
	if err := h.call(t, wire.MethodSessionContinue, wire.ContinueParams{SessionID: "s1", Message: "go on"}, nil); codeOf(err) != wire.CodeInvalidParams {
		t.Errorf("continue of a running session: %v, want %d", err, wire.CodeInvalidParams)
	}
	if err := h.call(t, wire.MethodMemoryWrite, wire.MemoryWriteParams{SessionID: "s1", CallID: "c", Values: map[string]json.RawMessage{}}, nil); codeOf(err) != wire.CodeInvalidParams {
		t.Errorf("memory/write to a running session: %v, want %d", err, wire.CodeInvalidParams)
	}
	if err := h.call(t, wire.MethodSessionSpawn, wire.SpawnParams{ParentSessionID: "s1", CallID: "c", Profile: "p", Prompt: "x"}, nil); codeOf(err) != wire.CodeMethodNotFound {
		t.Errorf("spawn without a Spawner: %v, want %d", err, wire.CodeMethodNotFound)
	}
	var dec wire.FrontendDecideResult
	p := wire.FrontendDecideParams{SessionID: "s1", Connection: "second",
		Decisions:            []wire.PlanDecision{{PlanItemID: "pi-1", Decision: wire.DecisionAllow}},
		InteractiveResponses: []wire.InteractiveResponse{{CallID: "c-1", Response: "yes"}}}
	if err := h.call(t, wire.MethodFrontendDecide, p, &dec); err != nil {
		t.Fatal(err)
	}
	if len(dec.Results) != 1 || dec.Results[0].Accepted || dec.Results[0].Category != wire.FrontendErrInvalidClientEvent ||
		len(dec.InteractiveResults) != 1 || dec.InteractiveResults[0].Accepted {
		t.Errorf("frontend/decide with nothing pending answered %+v", dec)
	}
	if err := h.call(t, wire.MethodSessionCancel, wire.CancelParams{SessionID: "s1"}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-done:
		if res.Status != wire.StatusCancelled {
			t.Errorf("the cancelled session ended %q", res.Status)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("session/cancel did not end the session")
	}
	if err := h.call(t, wire.MethodSessionCancel, wire.CancelParams{SessionID: "s1"}, nil); err != nil {
		t.Errorf("cancelling an ended session: %v, want {}", err)
	}
	for what, err := range map[string]error{
		"cancel":   h.call(t, wire.MethodSessionCancel, wire.CancelParams{SessionID: "nobody"}, nil),
		"continue": h.call(t, wire.MethodSessionContinue, wire.ContinueParams{SessionID: "s1", Message: "x"}, nil),
		"decide":   h.call(t, wire.MethodFrontendDecide, p, nil),
		"memory":   h.call(t, wire.MethodMemoryWrite, wire.MemoryWriteParams{SessionID: "nobody", CallID: "c"}, nil),
	} {
		if codeOf(err) != wire.CodeUnknownSession {
			t.Errorf("%s of a session not running: %v, want %d", what, err, wire.CodeUnknownSession)
		}
	}
	var events []wire.Event
	for _, raw := range h.notesOf(wire.NotifyEvent) {
		if ev := decodeAs[wire.Event](t, raw); ev.Kind == wire.EventFrontendError {
			events = append(events, ev)
		}
	}
	if len(events) != 2 || events[0].Payload["plan_item_id"] != "pi-1" || events[1].Payload["call_id"] != "c-1" {
		t.Errorf("frontend_error events %+v, want one for pi-1 and one for c-1", events)
	}
}

// Shutdown cancels the running sessions, answers them first, and ends
// Serve.
func TestShutdown(t *testing.T) {
	started := make(chan string, 1)
	h := startKit(t, blocking(started), nil)
	h.init(t)
	ran := make(chan wire.RunSessionResult, 1)
	go func() {
		var res wire.RunSessionResult
		_ = h.call(t, wire.MethodSessionRun, wire.RunParams{SessionID: "s1", Config: config()}, &res)
		ran <- res
	}()
	<-started
	if err := h.call(t, wire.MethodShutdown, struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
	if res := <-ran; res.Status != wire.StatusCancelled {
		t.Errorf("the session ended %q at shutdown", res.Status)
	}
	if run, shut := h.lineIndex(`"status":"cancelled","total`), h.lineIndex(`"result":{}`); run < 0 || run > shut {
		t.Errorf("session/run answered at line %d, shutdown at line %d", run, shut)
	}
	select {
	case err := <-h.served:
		if err != nil {
			t.Errorf("Serve = %v", err)
		}
		h.served <- err
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after shutdown")
	}
	rows := h.notesOf(wire.NotifySessionMeta)
	if len(rows) != 2 || decodeAs[wire.SessionMeta](t, rows[1]).Status != wire.StatusCancelled {
		t.Errorf("session/meta rows %s", rows)
	}
}

// Errors a kernel returns reach the harness with their codes.
func TestErrorCodes(t *testing.T) {
	errs := map[string]error{
		"refused": RejectConfig("no tiers"),
		"running": ErrSessionRunning,
		"plain":   context.DeadlineExceeded,
	}
	h := startKit(t, kernelFunc(func(_ context.Context, _ *Host, p wire.RunParams) (wire.RunSessionResult, error) {
		return wire.RunSessionResult{}, errs[p.SessionID]
	}), nil)
	h.init(t)
	for id, want := range map[string]int{"refused": wire.CodeConfigRejected, "running": wire.CodeInvalidRequest, "plain": wire.CodeInternal} {
		if err := h.call(t, wire.MethodSessionRun, wire.RunParams{SessionID: id, Config: config()}, nil); codeOf(err) != want {
			t.Errorf("%s: %v, want %d", id, err, want)
		}
	}
}

// Info.Glue reaches the initialize answer, which validates against the
// wire schema (PROTOCOL.md §15).
func TestInfoGlueInInitialize(t *testing.T) {
	res := Info{Name: "k", Version: "1", Glue: []wire.GlueNote{{Requirement: "TA-25", Reason: "pricing is the glue's"}}}.result()
	if len(res.Glue) != 1 || res.Glue[0].Requirement != "TA-25" {
		t.Fatalf("glue in the answer: %+v", res.Glue)
	}
	raw, _ := json.Marshal(res)
	if err := wire.Validate(wire.MethodInitialize, wire.PartResult, raw); err != nil {
		t.Errorf("the answer does not validate: %v", err)
	}
	bad, _ := json.Marshal(Info{Name: "k", Version: "1", Glue: []wire.GlueNote{{Requirement: "pricing", Reason: ""}}}.result())
	if err := wire.Validate(wire.MethodInitialize, wire.PartResult, bad); err == nil {
		t.Error("a glue note with no requirement ID and no reason validated")
	}
}
