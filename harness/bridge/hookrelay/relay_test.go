package hookrelay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentconform/conform/internal/golden"
	"github.com/agentconform/conform/spec/wire"
)

type recorder struct {
	mu     sync.Mutex
	events []Event
	answer func(Event) (Decision, error)
}

func (r *recorder) dispatch(_ context.Context, ev Event) (Decision, error) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
	return r.answer(ev)
}

func run(t *testing.T, url, agent, event, stdin string, extra ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	args := append([]string{"--url", url, "--agent", agent, "--event", event}, extra...)
	code := Main(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

const preToolStdin = `{"session_id":"agent-s1","hook_event_name":"PreToolUse","tool_use_id":"toolu_1","tool_name":"mcp__conform__write","tool_input":{"path":"c.txt"}}`

func TestRelayCarriesEventAndDecision(t *testing.T) {
	rec := &recorder{}
	srv := httptest.NewServer(Handler(rec.dispatch))
	defer srv.Close()
	cases := []struct {
		name, agent, event, stdin string
		d                         Decision
		code                      int
		stdout                    string
		point                     string
	}{
		{"claude deny pre-tool", AgentClaudeCode, "PreToolUse", preToolStdin, Decision{Outcome: Deny, Reason: "no writes today"}, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no writes today"}}`, wire.PointPreToolCall},
		{"claude allow pre-tool says nothing", AgentClaudeCode, "PreToolUse", preToolStdin, Decision{Outcome: Allow}, 0, ``, wire.PointPreToolCall},
		{"codex changed input", AgentCodex, "PreToolUse", preToolStdin, Decision{Outcome: Changed, Payload: json.RawMessage(`{"path":"d.txt"}`)}, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"path":"d.txt"}}}`, wire.PointPreToolCall},
		{"claude post-tool block", AgentClaudeCode, "PostToolUse", `{"tool_name":"mcp__conform__read","tool_input":{},"tool_response":"abc"}`, Decision{Outcome: Deny, Reason: "leak"}, 0,
			`{"decision":"block","reason":"leak"}`, wire.PointPostToolCall},
		{"gemini deny before-tool", AgentGemini, "BeforeTool", `{"tool_name":"mcp__conform__write","tool_input":{"path":"c.txt"},"mcp_context":{"server_name":"conform","tool_name":"write"}}`, Decision{Outcome: Deny, Reason: "no"}, 0,
			`{"decision":"deny","reason":"no"}`, wire.PointPreToolCall},
		{"gemini changed input", AgentGemini, "BeforeTool", `{"tool_name":"mcp__conform__write","tool_input":{"path":"c.txt"}}`, Decision{Outcome: Changed, Payload: json.RawMessage(`{"path":"e.txt"}`)}, 0,
			`{"hookSpecificOutput":{"tool_input":{"path":"e.txt"}}}`, wire.PointPreToolCall},
		{"gemini session start context", AgentGemini, "SessionStart", `{"source":"startup"}`, Decision{Context: "be brief"}, 0,
			`{"hookSpecificOutput":{"additionalContext":"be brief"}}`, wire.PointSessionStart},
		{"subscriber failed", AgentClaudeCode, "PreToolUse", preToolStdin, Decision{Outcome: Failed, Reason: "scripted subscriber error"}, 1, ``, wire.PointPreToolCall},
		{"claude chain aborted at pre-tool", AgentClaudeCode, "PreToolUse", preToolStdin, Decision{Outcome: Abort, Reason: "T failed"}, 0,
			`{"continue":false,"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"T failed"},"stopReason":"T failed"}`, wire.PointPreToolCall},
		{"codex chain aborted at pre-tool: the deny alone", AgentCodex, "PreToolUse", preToolStdin, Decision{Outcome: Abort, Reason: "T failed"}, 0,
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"T failed"}}`, wire.PointPreToolCall},
		{"codex chain aborted at post-tool", AgentCodex, "PostToolUse", `{"tool_name":"mcp__conform__read","tool_input":{},"tool_response":"abc"}`, Decision{Outcome: Abort, Reason: "T failed"}, 0,
			`{"continue":false,"stopReason":"T failed"}`, wire.PointPostToolCall},
		{"gemini chain aborted at before-tool", AgentGemini, "BeforeTool", `{"tool_name":"mcp__conform__write","tool_input":{"path":"c.txt"}}`, Decision{Outcome: Abort, Reason: "T failed"}, 0,
			`{"continue":false,"decision":"deny","reason":"T failed","stopReason":"T failed"}`, wire.PointPreToolCall},
		{"gemini chain aborted at after-tool", AgentGemini, "AfterTool", `{"tool_name":"mcp__conform__read","tool_input":{},"tool_response":"abc"}`, Decision{Outcome: Abort}, 0,
			`{"continue":false,"stopReason":"a conform hook chain aborted the turn"}`, wire.PointPostToolCall},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec.answer = func(Event) (Decision, error) { return c.d, nil }
			code, out, errOut := run(t, srv.URL+"/hook", c.agent, c.event, c.stdin)
			if code != c.code || strings.TrimSpace(out) != c.stdout {
				t.Errorf("exit %d stdout %q (stderr %q); want exit %d stdout %q", code, out, errOut, c.code, c.stdout)
			}
			if c.d.Outcome == Failed && !strings.Contains(errOut, "scripted subscriber error") {
				t.Errorf("a failed subscriber's reason is not on stderr: %q", errOut)
			}
			rec.mu.Lock()
			ev := rec.events[len(rec.events)-1]
			rec.mu.Unlock()
			if ev.Agent != c.agent || ev.AgentEvent != c.event || ev.Point != c.point || string(ev.Raw) != c.stdin {
				t.Errorf("dispatcher saw %+v", ev)
			}
		})
	}
	rec.mu.Lock()
	first := rec.events[0]
	rec.mu.Unlock()
	if first.ToolName != "mcp__conform__write" || string(first.ToolInput) != `{"path":"c.txt"}` || first.SessionID != "agent-s1" || first.ToolUseID != "toolu_1" || !first.Exact {
		t.Errorf("PreToolUse event parsed as %+v", first)
	}
	rec.answer = func(Event) (Decision, error) { return Decision{}, nil }
	if code, _, errOut := run(t, srv.URL, AgentCodex, "PreToolUse", preToolStdin, "--subscriber", "guard"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rec.mu.Lock()
	if last := rec.events[len(rec.events)-1]; last.Subscriber != "guard" {
		t.Errorf("--subscriber not carried: %+v", last)
	}
	gem := rec.events[4]
	rec.mu.Unlock()
	if gem.AgentEvent != "BeforeTool" || gem.MCPServer != "conform" || gem.MCPTool != "write" {
		t.Errorf("Gemini's mcp_context not read: %+v", gem)
	}
	if tool, ok := StripMCP(first.ToolName, "conform"); !ok || tool != "write" {
		t.Errorf("StripMCP = %q %v", tool, ok)
	}
}

// closedURL is a loopback address nobody listens on.
func closedURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/hook"
	_ = l.Close()
	return url
}

func TestFailurePolicy(t *testing.T) {
	broken := httptest.NewServer(Handler(func(context.Context, Event) (Decision, error) {
		return Decision{}, errors.New("harness connection closed")
	}))
	defer broken.Close()
	odd := httptest.NewServer(Handler(func(context.Context, Event) (Decision, error) {
		return Decision{Outcome: "maybe"}, nil
	}))
	defer odd.Close()
	down := closedURL(t)
	for _, c := range []struct {
		name, url, agent, event, stdin string
		code                           int
		stderr                         string
	}{
		{"unreachable gates: closed", down, AgentClaudeCode, "PreToolUse", preToolStdin, 2, "unreachable"},
		{"unreachable observes: open", down, AgentClaudeCode, "PostToolUse", `{}`, 1, "unreachable"},
		{"unreachable gemini gate", down, AgentGemini, "BeforeTool", `{}`, 2, "failing closed"},
		{"unreachable session end", down, AgentGemini, "SessionEnd", `{}`, 1, "unreachable"},
		{"dispatcher error", broken.URL, AgentCodex, "PreToolUse", preToolStdin, 2, "harness connection closed"},
		{"unknown outcome", odd.URL, AgentCodex, "PostToolUse", `{}`, 1, `unknown outcome "maybe"`},
		{"stdin not JSON", broken.URL, AgentCodex, "PreToolUse", `{not json`, 2, "stdin is not JSON"},
		{"unknown agent", broken.URL, "aider", "PreToolUse", `{}`, 1, "unknown --agent"},
		{"bad url", "127.0.0.1:1", AgentClaudeCode, "UserPromptSubmit", `{}`, 2, "not an http URL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := run(t, c.url, c.agent, c.event, c.stdin)
			if code != c.code || out != "" || !strings.Contains(errOut, c.stderr) {
				t.Errorf("exit %d stdout %q stderr %q; want exit %d, no stdout, stderr with %q", code, out, errOut, c.code, c.stderr)
			}
		})
	}
}

func TestRelayNeverHangs(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(Handler(func(ctx context.Context, _ Event) (Decision, error) {
		select {
		case <-ctx.Done():
		case <-release:
		}
		return Decision{}, ctx.Err()
	}))
	defer srv.Close()
	done := make(chan struct{})
	var code int
	var errOut string
	go func() {
		code, _, errOut = run(t, srv.URL, AgentClaudeCode, "PreToolUse", preToolStdin, "--timeout", "100ms")
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the relay hung on a kernel that never answered")
	}
	if code != 2 || !strings.Contains(errOut, "did not answer within 100ms") {
		t.Errorf("exit %d stderr %q; want a closed failure naming the timeout", code, errOut)
	}
}

func TestRelayNeverHangsOnAnOpenStdin(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main([]string{"--url", "http://127.0.0.1:1/", "--agent", AgentGemini, "--event", "AfterTool", "--timeout", "100ms"}, pr, &out, &errb)
	}()
	select {
	case code := <-done:
		if code != 1 || !strings.Contains(errb.String(), "stdin was not closed within 100ms") {
			t.Errorf("exit %d stderr %q", code, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the relay hung on a stdin the agent never closed")
	}
}

func TestHandlerRefusesWhatIsNotAHookEvent(t *testing.T) {
	called := false
	for _, c := range []struct {
		method, body string
		code         int
	}{
		{"GET", "", 405},
		{"POST", "nope", 400},
		{"POST", `{"agent":"aider","event":"X","input":{}}`, 400},
		{"POST", `{"agent":"codex","event":"","input":{}}`, 400},
		{"POST", `{"agent":"codex","event":"PreToolUse","input":[1]}`, 400},
	} {
		req := httptest.NewRequest(c.method, "/hook", strings.NewReader(c.body))
		w := httptest.NewRecorder()
		Handler(func(context.Context, Event) (Decision, error) { called = true; return Decision{}, nil }).ServeHTTP(w, req)
		if w.Code != c.code || !strings.Contains(w.Body.String(), "hook relay:") {
			t.Errorf("%s %q: %d %q, want %d with a message", c.method, c.body, w.Code, w.Body.String(), c.code)
		}
	}
	if called {
		t.Error("the dispatcher ran for a request that is not a hook event")
	}
}

// TestFormatsGolden renders every decision for every mapped event: the
// golden file is the relay's whole output table, for review.
func TestFormatsGolden(t *testing.T) {
	decisions := []Decision{
		{},
		{Context: "ctx"},
		{Outcome: Deny, Reason: "why"},
		{Outcome: Deny},
		{Outcome: Changed, Payload: json.RawMessage(`{"k":"v"}`)},
		{Outcome: Failed, Reason: "boom"},
		{Outcome: Abort, Reason: "chain aborted"},
	}
	var b bytes.Buffer
	for _, m := range Mappings {
		if m.Agent == AgentPi {
			continue // its extension reads the Decision itself: no relay command, no format
		}
		for _, d := range decisions {
			o := Format(m.Agent, m.AgentEvent, d)
			dj, _ := json.Marshal(d)
			fmt.Fprintf(&b, "%s %s %s -> exit %d stdout %s stderr %q\n", m.Agent, m.AgentEvent, dj, o.Code, strings.TrimSpace(string(o.Stdout)), o.Stderr)
		}
	}
	golden.Check(t, "formats.golden", b.Bytes())
}

func TestMappingsNameSpecPoints(t *testing.T) {
	for _, m := range Mappings {
		if m.Point != "" && !slices.Contains(wire.HookPoints, m.Point) {
			t.Errorf("%s %s maps to %q, not a spec hook point", m.Agent, m.AgentEvent, m.Point)
		}
		if !m.Exact && m.Note == "" {
			t.Errorf("%s %s is not exact and says not why", m.Agent, m.AgentEvent)
		}
	}
	for _, gate := range []string{"PreToolUse", "BeforeTool"} {
		agent := AgentClaudeCode
		if gate == "BeforeTool" {
			agent = AgentGemini
		}
		if m, _ := PointOf(agent, gate); !m.Gates {
			t.Errorf("%s does not gate", gate)
		}
	}
}

func TestHookConfigsGolden(t *testing.T) {
	r := Relay{Exe: "/opt/conform dir/conform", URL: "http://127.0.0.1:40124/hook", Timeout: 20 * time.Second}
	cc, err := ClaudeCodeHooks(r, append(Hooks("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"),
		Hook{Event: "PreToolUse", Subscriber: "guard"}, Hook{Event: "PreToolUse", Subscriber: "audit"}))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := marshal(map[string]any{"hooks": cc})
	golden.Check(t, "claude-code.settings.json", b)
	cx, err := CodexHooksJSON(r, Hooks("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "codex.hooks.json", cx)
	gm, err := GeminiHooks(r, append(Hooks("SessionStart", "BeforeAgent", "BeforeModel", "AfterTool", "SessionEnd"), Hook{Event: "BeforeTool", Subscriber: "guard"}))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = marshal(map[string]any{"hooks": gm})
	golden.Check(t, "gemini.settings.json", b)

	if _, err := ClaudeCodeHooks(r, Hooks("BeforeTool")); err == nil {
		t.Error("Claude Code hooks accepted a Gemini event")
	}
	if _, err := GeminiHooks(Relay{URL: r.URL}, Hooks("BeforeTool")); err == nil {
		t.Error("hooks accepted a relay with no binary")
	}
}

func TestCommandQuotesForTheShell(t *testing.T) {
	r := Relay{Exe: "/tmp/it's here/conform", URL: "http://127.0.0.1:1/hook"}
	got := r.Command(AgentCodex, Hook{Event: "PreToolUse", Subscriber: "a b"})
	want := `'/tmp/it'\''s here/conform' hook-relay --url http://127.0.0.1:1/hook --agent codex --event PreToolUse --subscriber 'a b'`
	if got != want {
		t.Errorf("Command = %s\nwant      %s", got, want)
	}
}
