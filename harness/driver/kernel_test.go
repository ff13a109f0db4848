package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/spec/wire"
)

// guard bounds every wait of these tests: a failure detector, never a way
// to order events.
const guard = 20 * time.Second

// rawKernel is an in-process kernel that writes raw lines, so a test can
// send what no encoder would. It answers initialize (after beforeInit) and
// plays onRun for session/run; onRun writes the answer itself, or not.
type rawKernel struct {
	beforeInit []string
	onRun      func(out *rawOut, id json.RawMessage, session string)
}

type rawOut struct{ w io.Writer }

func (o *rawOut) line(s string) { _, _ = io.WriteString(o.w, s+"\n") }

func (o *rawOut) result(id json.RawMessage, v any) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": v})
	o.line(string(b))
}

func (rk rawKernel) serve(ctx context.Context, in io.Reader, w io.Writer) error {
	out := &rawOut{w}
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch m.Method {
		case wire.MethodInitialize:
			for _, l := range rk.beforeInit {
				out.line(l)
			}
			out.result(m.ID, wire.InitializeResult{ProtocolVersion: wire.Version, Kernel: wire.Peer{Name: "raw", Version: "0"}, Capabilities: []string{}})
		case wire.MethodSessionRun:
			var p wire.RunParams
			_ = json.Unmarshal(m.Params, &p)
			go rk.onRun(out, m.ID, p.SessionID)
		case wire.MethodShutdown:
			out.result(m.ID, wire.Empty{})
		}
	}
	return nil
}

func completedResult(session string) wire.RunSessionResult {
	return wire.RunSessionResult{SessionID: session, Status: wire.StatusCompleted, Turns: 1}
}

func startRaw(t *testing.T, rk rawKernel) (*Kernel, error) {
	t.Helper()
	k, err := Start(context.Background(), adapter.InProcess{Name: "raw", Serve: rk.serve}, guard)
	if k != nil {
		t.Cleanup(k.Close)
	}
	return k, err
}

// runRaw runs one session on a raw kernel and returns its world and error.
func runRaw(t *testing.T, rk rawKernel, timeout time.Duration, setup func(*fakes.World)) (*fakes.World, error) {
	t.Helper()
	k, err := startRaw(t, rk)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	w := fakes.NewWorld()
	if setup != nil {
		setup(w)
	}
	t.Cleanup(w.Close)
	_, err = k.Run(context.Background(), w, wire.RunParams{SessionID: "s1"}, timeout)
	return w, err
}

func expectFault(t *testing.T, err error, wants ...string) {
	t.Helper()
	var f *Fault
	if !errors.As(err, &f) {
		t.Fatalf("Run returned %v, want a *Fault", err)
	}
	for _, w := range wants {
		if !strings.Contains(f.What, w) {
			t.Errorf("fault does not say %q:\n%s", w, f.What)
		}
	}
}

func costLine(session, tokens string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"cost/usage","params":{"session_id":%q,"turn_id":"t1","model":"m","usage":{"input_tokens":%s,"output_tokens":3e0},"cost_usd":0.5,"session_total_usd":0.5,"tier_index":0.0}}`, session, tokens)
}

// answerAfter writes lines and then the session's answer.
func answerAfter(lines func(session string) []string) func(*rawOut, json.RawMessage, string) {
	return func(out *rawOut, id json.RawMessage, session string) {
		for _, l := range lines(session) {
			out.line(l)
		}
		out.result(id, completedResult(session))
	}
}

func TestIntegralFloatTokensKeepTheCostRow(t *testing.T) {
	w, err := runRaw(t, rawKernel{onRun: answerAfter(func(s string) []string { return []string{costLine(s, "1200.0")} })}, guard, nil)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	cs := w.Costs()
	if len(cs) != 1 || cs[0].Usage.InputTokens != 1200 || cs[0].Usage.OutputTokens != 3 {
		t.Errorf("cost rows %+v, want one with 1200 input and 3 output tokens", cs)
	}
}

func TestNumberBeyondItsFieldIsAFault(t *testing.T) {
	_, err := runRaw(t, rawKernel{onRun: answerAfter(func(s string) []string { return []string{costLine(s, "1e400")} })}, guard, nil)
	expectFault(t, err, "cost/usage params: does not decode: at /usage/input_tokens: number 1e400 is not an int64")
}

func TestMessageBeforeInitializeIsAFault(t *testing.T) {
	_, err := startRaw(t, rawKernel{beforeInit: []string{`{"jsonrpc":"2.0","method":"event","params":{"session_id":"s1","kind":"hello","producer":"k"}}`}})
	if err == nil || !strings.Contains(err.Error(), "event sent before initialize was answered") {
		t.Errorf("Start: %v, want a fault naming the early event", err)
	}
}

// TestProtocolBreaksAreNamed: each break, sent while session/run is
// pending, ends the scenario in a fault that names it, at once.
func TestProtocolBreaksAreNamed(t *testing.T) {
	for _, tt := range []struct {
		name string
		line func(session string) string
		want string
	}{
		{"second response", func(string) string {
			return `{"jsonrpc":"2.0","id":1,"result":{"protocol_version":"conform.wire/v1","kernel":{"name":"raw","version":"0"}}}`
		},
			"second response to initialize (id 1)"},
		{"result and error", func(s string) string {
			return `{"jsonrpc":"2.0","id":2,"result":{"session_id":"` + s + `","status":"completed","turns":1},"error":{"code":1,"message":"x"}}`
		}, "response to session/run (id 2) has both result and error"},
		{"no such request", func(string) string { return `{"jsonrpc":"2.0","id":99,"result":{}}` }, "response with id 99, which no request had"},
		{"upper-case member", func(string) string { return `{"JSONRPC":"2.0","method":"event","params":{}}` }, `member "JSONRPC" is not "jsonrpc"`},
		{"case-variant member", func(string) string { return `{"jsonrpc":"2.0","Method":"event","params":{}}` }, `member "Method" is not "method"`},
		{"repeated key", func(s string) string {
			return `{"jsonrpc":"2.0","method":"event","params":{"session_id":"` + s + `","kind":"a","kind":"b","producer":"k"}}`
		}, `repeated key: at /params: key "kind" appears twice`},
		{"invalid UTF-8", func(s string) string {
			return `{"jsonrpc":"2.0","method":"event","params":{"session_id":"` + s + "\",\"kind\":\"caf\xe9\",\"producer\":\"k\"}}"
		}, "line is not valid UTF-8"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := runRaw(t, rawKernel{onRun: func(out *rawOut, id json.RawMessage, s string) { out.line(tt.line(s)) }}, guard, nil)
			expectFault(t, err, "protocol violation", tt.want)
			if d := time.Since(start); d > guard/2 {
				t.Errorf("the fault took %v: it waited for a timeout", d)
			}
		})
	}
}

func modelStreamLine(id, session string) string {
	p := wire.ModelStreamParams{
		CallContext: wire.CallContext{SessionID: session, TurnID: "t1", WorkingDirectory: "/w"},
		Purpose:     wire.PurposeTurn, Model: "m",
		Messages: []wire.Message{{Role: "user", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: "hi"}}}},
		Tools:    []wire.ToolSpec{}, AssembledContext: []wire.Contribution{}, Attempt: 1,
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": wire.MethodModelStream, "params": p})
	return string(b)
}

func TestReusedRequestIDIsAFault(t *testing.T) {
	rk := rawKernel{onRun: func(out *rawOut, _ json.RawMessage, s string) {
		out.line(modelStreamLine("k1", s)) // the fake model holds it
		out.line(modelStreamLine("k1", s))
	}}
	_, err := runRaw(t, rk, guard, func(w *fakes.World) { w.Model.On(1, fakes.Reply{Hang: true}) })
	expectFault(t, err, `request id "k1" reused by model/stream while the model/stream request with that id is still unanswered`)
}

// withLimits lowers the flood limits for one test.
func withLimits(t *testing.T, messages int, bytes int64) {
	oldM, oldB := maxMessages, maxBytes
	maxMessages, maxBytes = messages, bytes
	t.Cleanup(func() { maxMessages, maxBytes = oldM, oldB })
}

func events(session string, n, size int) []string {
	blob := strings.Repeat("x", size)
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(`{"jsonrpc":"2.0","method":"event","params":{"session_id":%q,"kind":"tick","producer":"k","payload":{"b":%q}}}`, session, blob)
	}
	return out
}

func TestFloodLimits(t *testing.T) {
	withLimits(t, 100, 1<<20)
	t.Run("at the message limit", func(t *testing.T) {
		w, err := runRaw(t, rawKernel{onRun: answerAfter(func(s string) []string { return events(s, 100, 1) })}, guard, nil)
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		if n := len(w.Events()); n != 100 {
			t.Errorf("%d events kept, want 100", n)
		}
	})
	t.Run("past the message limit", func(t *testing.T) {
		w, err := runRaw(t, rawKernel{onRun: answerAfter(func(s string) []string { return events(s, 1000, 1) })}, guard, nil)
		expectFault(t, err, `flood: the kernel sent more than 100 messages in one scenario (session "s1" and its children)`, "conform holds at most 100 messages and 1 MiB per scenario")
		if n := len(w.Events()); n != 100 {
			t.Errorf("%d events kept, want the first 100", n)
		}
	})
	t.Run("past the byte limit", func(t *testing.T) {
		w, err := runRaw(t, rawKernel{onRun: answerAfter(func(s string) []string { return events(s, 50, 64<<10) })}, guard, nil)
		expectFault(t, err, `flood: the kernel sent more than 1 MiB of messages in one scenario`)
		if n := len(w.Events()); n > 16 {
			t.Errorf("%d events of 64 KiB kept past a 1 MiB limit", n)
		}
	})
	t.Run("for no scenario", func(t *testing.T) {
		_, err := runRaw(t, rawKernel{onRun: answerAfter(func(string) []string { return events("nobody", 1000, 1) })}, guard, nil)
		expectFault(t, err, "flood: the kernel sent more than 100 messages for sessions no scenario runs")
	})
}

// TestConformSlownessIsNotAHang: conform takes 2 ms over each of 400 events
// (an OnEvent that sleeps stands for a loaded machine) while the scenario
// timeout is 200 ms; the kernel wrote everything at once and answered, so
// it is not hung. The time conform spent is added to the timeout.
func TestConformSlownessIsNotAHang(t *testing.T) {
	rk := rawKernel{onRun: answerAfter(func(s string) []string { return events(s, 400, 1) })}
	w, err := runRaw(t, rk, 200*time.Millisecond, func(w *fakes.World) {
		w.OnEvent = func(wire.Event) { time.Sleep(2 * time.Millisecond) }
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if n := len(w.Events()); n != 400 {
		t.Errorf("%d events, want 400", n)
	}
}

// TestHangIsAHang: a kernel that sends nothing is hung at the timeout, with
// nothing to credit.
func TestHangIsAHang(t *testing.T) {
	start := time.Now()
	_, err := runRaw(t, rawKernel{onRun: func(*rawOut, json.RawMessage, string) {}}, 200*time.Millisecond, nil)
	expectFault(t, err, "no answer to session/run before the scenario timeout (hang)")
	if strings.Contains(err.Error(), "not counting") {
		t.Errorf("an idle conform credited time: %v", err)
	}
	if d := time.Since(start); d > guard/2 {
		t.Errorf("took %v", d)
	}
}

// TestHangAfterAFloodIsCredited: conform was slow, caught up, and the
// kernel still did not answer: a hang, saying what was not counted. The
// timeout is a second, and conform's work twice that: at a load of 25
// an in-process kernel's goroutine went unscheduled for the whole of an
// earlier 100 ms timeout, which was then all the kernel's (no credit).
func TestHangAfterAFloodIsCredited(t *testing.T) {
	rk := rawKernel{onRun: func(out *rawOut, _ json.RawMessage, s string) {
		for _, l := range events(s, 1000, 1) {
			out.line(l)
		}
	}}
	_, err := runRaw(t, rk, time.Second, func(w *fakes.World) {
		w.OnEvent = func(wire.Event) { time.Sleep(2 * time.Millisecond) }
	})
	expectFault(t, err, "no answer to session/run before the scenario timeout (hang) (not counting")
}

// TestStillSendingIsNoHang: a kernel that keeps sending but never answers
// session/run is not hung; past three timeouts the session ends, saying it
// was still running.
func TestStillSendingIsNoHang(t *testing.T) {
	rk := rawKernel{onRun: func(out *rawOut, _ json.RawMessage, s string) {
		for i := 0; i < 200; i++ {
			out.line(events(s, 1, 1)[0])
			time.Sleep(20 * time.Millisecond)
		}
	}}
	start := time.Now()
	_, err := runRaw(t, rk, 200*time.Millisecond, nil)
	expectFault(t, err, "the kernel was still sending", "did not end within 3 times the scenario timeout")
	if strings.Contains(err.Error(), "(hang)") {
		t.Errorf("a kernel still sending was called hung: %v", err)
	}
	if d := time.Since(start); d < 600*time.Millisecond {
		t.Errorf("ended after %v, before three timeouts of activity", d)
	}
}
