package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/agentconform/conform/harness/bridge/dialect"
	"github.com/agentconform/conform/harness/bridge/hookrelay"
	"github.com/agentconform/conform/harness/bridge/mcpserve"
	"github.com/agentconform/conform/harness/bridge/otlp"
	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/spec/wire"
)

// run is one session: its scratch folders, its servers, its agent.
type run struct {
	k   *Kernel
	h   *kernelkit.Host
	p   wire.RunParams
	dir string // scratch root: home/, work/, tmp/, config files
	id  string

	model, aux *http.Server
	modelURL   string
	auxURL     string
	mcp        *mcpserve.Server

	mu        sync.Mutex
	turns     int
	attempt   int
	lastKey   string
	lastError bool
	pending   []wire.StreamEvent // tool calls of the latest reply, not yet invoked
	callSeq   int
	problems  []string // the agent's misbehaviour, for the error answer
	observed  []observation
	ownTools  map[string]bool
	ownOrder  []string           // the agent's own tools, as first offered
	sess      *kernelkit.Session // for the hooks' fan-out (hooks.go)
}

var runSeq struct {
	sync.Mutex
	n int
}

func newRun(k *Kernel, h *kernelkit.Host, p wire.RunParams) (*run, error) {
	runSeq.Lock()
	runSeq.n++
	id := fmt.Sprintf("%d-%d", os.Getpid(), runSeq.n)
	runSeq.Unlock()
	dir, err := os.MkdirTemp(k.ScratchRoot, "conform-agent-")
	if err != nil {
		return nil, err
	}
	r := &run{k: k, h: h, p: p, dir: dir, id: id, ownTools: map[string]bool{}, sess: kernelkit.NewSession(h, p)}
	for _, d := range []string{"home", "work", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			r.close()
			return nil, err
		}
	}
	if err := r.serve(); err != nil {
		r.close()
		return nil, err
	}
	return r, nil
}

func (r *run) close() {
	for _, s := range []*http.Server{r.model, r.aux} {
		if s != nil {
			_ = s.Close()
		}
	}
	_ = os.RemoveAll(r.dir)
}

// serve starts the model server and the aux server (MCP, hooks, OTLP), both
// on 127.0.0.1, which inside the namespace is all there is.
func (r *run) serve() error {
	pr := r.k.Profile
	prefix := pr.toolPrefix()
	opts := dialect.Options{
		ToWire: func(n string) (string, bool) { return pr.sessionTool(n, r.p.Config.Tools) },
		OwnTool: func(n string) {
			r.mu.Lock()
			if !r.ownTools[n] {
				r.ownTools[n] = true
				r.ownOrder = append(r.ownOrder, n)
			}
			r.mu.Unlock()
		},
		ToAgent:   func(n string) string { return prefix + n },
		Intercept: r.intercept,
		Observe: func(f string, a ...any) {
			msg := fmt.Sprintf(f, a...)
			r.mu.Lock()
			if strings.Contains(msg, "refused") || strings.Contains(msg, "unreadable") {
				r.problems = append(r.problems, msg)
			} else {
				r.observed = append(r.observed, observation{SubjectBridge, msg})
			}
			r.mu.Unlock()
		},
		Other: func(q *http.Request, _ []byte) (int, any) {
			if b, ok := pr.StubPaths[q.URL.Path]; ok {
				r.observe("stub answered %s %s", q.Method, q.URL.Path)
				return http.StatusOK, b
			}
			r.observe("answered 404 to %s %s", q.Method, q.URL.Path)
			return http.StatusNotFound, map[string]any{"error": map[string]any{"message": "not found"}}
		},
	}
	mh, err := dialect.New(pr.Dialect, r.stream, opts)
	if err != nil {
		return err
	}
	if r.model, r.modelURL, err = listen(mh); err != nil {
		return err
	}
	r.mcp, err = mcpserve.New(r.p.Config.Tools, r.invoke, mcpserve.Options{Name: pr.serverName(), Version: r.k.Version})
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", r.mcp.Handler())
	mux.Handle("/mcp/", r.mcp.Handler())
	mux.Handle("/hooks", hookrelay.Handler(r.dispatch))
	// Spans are the agent's own; the bridge forwards them only when the
	// session asked for telemetry, and adds none.
	rc, err := otlp.New(func(s wire.Span) {
		if r.p.Config.Telemetry {
			r.h.Span(s)
		}
	}, otlp.Mapping{SessionID: r.p.SessionID, Roles: pr.SpanRoles})
	if err != nil {
		return err
	}
	mux.Handle("/v1/", rc.Handler())
	r.aux, r.auxURL, err = listen(mux)
	return err
}

func listen(h http.Handler) (*http.Server, string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("listen on loopback: %w", err)
	}
	s := &http.Server{Handler: h}
	go func() { _ = s.Serve(l) }()
	return s, "http://" + l.Addr().String(), nil
}

// observation is one thing the bridge saw of the agent in this session.
type observation struct{ subject, what string }

func (r *run) observe(f string, a ...any) { r.observeAs(SubjectBridge, f, a...) }

func (r *run) observeAs(subject, f string, a ...any) {
	r.mu.Lock()
	r.observed = append(r.observed, observation{subject, fmt.Sprintf(f, a...)})
	r.mu.Unlock()
}

func (r *run) problem(f string, a ...any) {
	r.mu.Lock()
	r.problems = append(r.problems, fmt.Sprintf(f, a...))
	r.mu.Unlock()
}

func (r *run) callContext() wire.CallContext {
	return wire.CallContext{SessionID: r.p.SessionID, TurnID: "turn-" + strconv.Itoa(max(r.turns, 1)), WorkingDirectory: r.p.Config.WorkingDirectory}
}

// stream is one model request of the agent: a turn, or a retry of the
// latest one when the agent sends the same messages again after an error.
func (r *run) stream(ctx context.Context, p wire.ModelStreamParams) (wire.ModelStreamResult, error) {
	key, _ := json.Marshal(p.Messages)
	r.mu.Lock()
	if r.lastError && string(key) == r.lastKey {
		r.attempt++
	} else {
		r.turns++
		r.attempt = 1
	}
	r.lastKey = string(key)
	p.Attempt = r.attempt
	p.CallContext = r.callContext()
	r.mu.Unlock()
	res, err := r.h.Stream(ctx, p)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lastError = err != nil
	r.pending = r.pending[:0]
	for _, e := range res.Events {
		switch e.Type {
		case wire.EventErrorSE:
			r.lastError = true
		case wire.EventToolCall:
			r.pending = append(r.pending, e)
		}
	}
	return res, err
}

// intercept answers the calls the profile says are not turns.
func (r *run) intercept(c dialect.Call) (wire.ModelStreamResult, bool) {
	for _, n := range r.k.Profile.NotTurns {
		if !matches(n, c, r.k.Profile.toolPrefix()) {
			continue
		}
		text := n.Answer
		if n.Answer == "fit" {
			b, _ := json.Marshal(dialect.Fit(c.JSONSchema))
			text = string(b)
		}
		// TA-01: what is a turn of the loop. The call is the agent's, its
		// answer the profile's reading (bridge.not_turns).
		r.observeAs("TA-01", "%s: a model request answered by the profile's not_turns rule (%s), not counted as a turn", orName(n.Name, n.Match), n.Match)
		return wire.ModelStreamResult{Events: []wire.StreamEvent{
			{Type: wire.EventTextDelta, Text: text},
			{Type: wire.EventUsage, Usage: &wire.Usage{}},
			{Type: wire.EventStop, StopReason: "end_turn"},
		}}, true
	}
	return wire.ModelStreamResult{}, false
}

func orName(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func matches(n NotTurn, c dialect.Call, prefix string) bool {
	switch n.Match {
	case "json_schema":
		return c.JSONSchema != nil
	case "system_contains":
		return strings.Contains(c.System, n.Text)
	case "no_tools":
		return len(c.Params.Tools) == 0
	case "max_tokens_at_most":
		return c.MaxTokens > 0 && c.MaxTokens <= n.Tokens
	}
	return false
}

// invoke is one MCP tools/call: the tool/invoke (for an interactive tool
// the frontend/interactive) of the call the model's latest reply asked for
// (matched by name and input, else by name), with that call's id.
func (r *run) invoke(ctx context.Context, tool string, input json.RawMessage) (wire.ToolInvokeResult, error) {
	r.mu.Lock()
	id := ""
	canon := canonical(input)
	for pass := 0; pass < 2 && id == ""; pass++ {
		for i, e := range r.pending {
			if e.Name == tool && (pass == 1 || canonical(e.Input) == canon) {
				id = e.ID
				r.pending = append(r.pending[:i:i], r.pending[i+1:]...)
				break
			}
		}
	}
	if id == "" {
		r.callSeq++
		id = fmt.Sprintf("bridge-call-%d", r.callSeq)
		r.observed = append(r.observed, observation{SubjectBridge, fmt.Sprintf("the agent called %q with no matching tool call of the model (call id %s)", tool, id)})
	}
	cc := r.callContext()
	r.mu.Unlock()
	provider, kind := "", ""
	for _, t := range r.p.Config.Tools {
		if t.Name == tool {
			provider, kind = t.Provider, t.Kind
		}
	}
	if kind == wire.KindInteractive {
		// An interactive tool asks the user: the agent offers it as an MCP
		// tool (MCP has no other kind), the bridge, as the agent's kernel,
		// puts the question to the frontend as the protocol says (A-16
		// step 9b), so the calls the harness holds and counts are the
		// frontend's whatever the agent is.
		ans, err := r.h.Interactive(ctx, wire.InteractiveParams{CallContext: cc, CallID: id, ToolName: tool, Prompt: "The agent asks: " + tool + " " + string(input), Input: input})
		if err != nil {
			return wire.ToolInvokeResult{Output: json.RawMessage(strconv.Quote("the frontend failed: " + err.Error())), IsError: true, ErrorCategory: wire.ToolErrExecutionFailed}, nil
		}
		out, _ := json.Marshal(ans.Response)
		return wire.ToolInvokeResult{Output: out}, nil
	}
	res, err := r.h.Invoke(ctx, wire.ToolInvokeParams{CallContext: cc, CallID: id, Provider: provider, Tool: tool, Input: input, Attempt: 1})
	var e *kernelkit.Error
	if errors.As(err, &e) && e.Code == wire.CodeProcessCrashed {
		// The provider crashed: the agent sees a failed tool, as it would
		// see an MCP server's tool error.
		return wire.ToolInvokeResult{Output: json.RawMessage(strconv.Quote("tool crashed: " + e.Message)), IsError: true, ErrorCategory: wire.ToolErrProcessCrashed}, nil
	}
	return res, err
}

func canonical(b json.RawMessage) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	out, _ := json.Marshal(v)
	return string(out)
}
