package server

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/agentconform/conform/refkernel/internal/fakehost"
	"github.com/agentconform/conform/spec/wire"
)

// TA-09 over the wire: a soft max_turns pauses the session with a
// limit_reached event; session/continue resumes it with the user's message.
func TestSoftLimitContinue(t *testing.T) {
	paused := make(chan struct{})
	fake := &fakehost.Host{OnModel: func(n int, p wire.ModelStreamParams) (wire.ModelStreamResult, error) {
		if n <= 2 {
			return fakehost.Calls(fakehost.Call("c", "read", `{"path":"`+string(rune('a'+n))+`"}`)), nil
		}
		return fakehost.Text("done"), nil
	}}
	h := start(t, fake)
	h.init(t)
	if err := h.call(t, wire.MethodSessionContinue, wire.ContinueParams{SessionID: "nobody", Message: "go"}, nil); code(err) != wire.CodeUnknownSession {
		t.Fatalf("continue of an unknown session: %v", err)
	}
	cfg := config()
	cfg.Hooks.Subscribers = nil
	two := 2
	cfg.Bounds = wire.Bounds{MaxTurns: &two, Soft: true}
	done := make(chan wire.RunSessionResult, 1)
	go func() {
		var res wire.RunSessionResult
		if err := h.call(t, wire.MethodSessionRun, wire.RunParams{SessionID: "soft", Prompt: "go", Config: cfg}, &res); err != nil {
			t.Error(err)
		}
		done <- res
	}()
	go func() {
		for {
			for _, raw := range h.notesOf(wire.NotifyEvent) {
				var ev wire.Event
				_ = json.Unmarshal(raw, &ev)
				if ev.Kind == wire.EventLimitReached && ev.Payload["soft"] == true {
					close(paused)
					return
				}
			}
			time.Sleep(time.Millisecond) // polls for the pause: not an ordering sleep
		}
	}()
	select {
	case <-paused:
	case <-time.After(10 * time.Second):
		t.Fatal("the session never paused")
	}
	if err := h.call(t, wire.MethodSessionContinue, wire.ContinueParams{SessionID: "soft", Message: "please continue"}, nil); err != nil {
		t.Fatalf("continue: %v", err)
	}
	select {
	case res := <-done:
		if res.Status != wire.StatusCompleted || res.Turns != 3 {
			t.Fatalf("result %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not resume")
	}
	last := fake.Requests()[2]
	var sawUser bool
	for _, m := range last.Messages {
		for _, c := range m.Content {
			if m.Role == "user" && c.Text == "please continue" {
				sawUser = true
			}
		}
	}
	if !sawUser || len(last.Tools) == 0 {
		t.Fatalf("the resumed turn's request lacks the continuation or its tools: %+v", last)
	}
	if err := h.call(t, wire.MethodSessionContinue, wire.ContinueParams{SessionID: "soft", Message: "again"}, nil); code(err) != wire.CodeUnknownSession {
		t.Fatalf("continue after the end: %v", err)
	}
}

func (h *harness) notesOf(method string) []json.RawMessage {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]json.RawMessage(nil), h.notes[method]...)
}
