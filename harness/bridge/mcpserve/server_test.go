package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentconform/conform/spec/wire"
)

var testTools = []wire.ToolSchema{
	{Provider: "fs", Name: "read", Description: "Read a file", Kind: wire.KindDataSource,
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}},
	{Provider: "fs", Name: "write", Description: "Write a file", Kind: wire.KindResource},
}

type call struct {
	tool  string
	input string
}

// serve starts the server on a real loopback HTTP listener and connects the
// go-sdk's own client to it.
func serve(t *testing.T, inv Invoker) (*Server, *mcp.ClientSession) {
	t.Helper()
	s, err := New(testTools, inv, Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	c := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return s, cs
}

func ctx10(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestListsTheSessionTools(t *testing.T) {
	s, cs := serve(t, func(context.Context, string, json.RawMessage) (wire.ToolInvokeResult, error) {
		return wire.ToolInvokeResult{}, nil
	})
	// The client's notifications/initialized is handled after Connect
	// returns, on the server's own time: wait for it, never race it.
	for deadline := time.Now().Add(10 * time.Second); s.Sessions() != 1 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if s.Sessions() != 1 {
		t.Errorf("Sessions() = %d 10 s after one client initialized, want 1", s.Sessions())
	}
	res, err := cs.ListTools(ctx10(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 2 {
		t.Fatalf("got %d tools, want 2", len(res.Tools))
	}
	byName := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
	}
	r := byName["read"]
	if r == nil || r.Description != "Read a file" || !r.Annotations.ReadOnlyHint {
		t.Errorf("read tool offered as %+v", r)
	}
	schema, _ := json.Marshal(r.InputSchema)
	if !strings.Contains(string(schema), `"path"`) {
		t.Errorf("read tool's input schema lost its properties: %s", schema)
	}
	w := byName["write"]
	ws, _ := json.Marshal(w.InputSchema)
	if string(ws) != `{"type":"object"}` || w.Annotations.ReadOnlyHint {
		t.Errorf("write tool offered with schema %s, annotations %+v", ws, w.Annotations)
	}
}

func TestCallGoesThroughTheInvokerAndRendersTheResult(t *testing.T) {
	var mu sync.Mutex
	var got []call
	_, cs := serve(t, func(_ context.Context, tool string, in json.RawMessage) (wire.ToolInvokeResult, error) {
		mu.Lock()
		got = append(got, call{tool, string(in)})
		mu.Unlock()
		switch tool {
		case "read":
			return wire.ToolInvokeResult{Output: json.RawMessage(`"contents of a"`)}, nil
		default:
			return wire.ToolInvokeResult{Output: json.RawMessage(`{"written":3}`), IsError: true, ErrorCategory: wire.ToolErrPermissionDenied}, nil
		}
	})
	ctx := ctx10(t)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "a"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "contents of a" || res.StructuredContent != nil {
		t.Errorf("read result rendered as %+v", res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "write"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.Content[0].(*mcp.TextContent).Text != `{"written":3}` {
		t.Errorf("write result rendered as %+v", res)
	}
	if sc, _ := json.Marshal(res.StructuredContent); string(sc) != `{"written":3}` {
		t.Errorf("structured content %s, want the object output", sc)
	}
	if res.Meta["conform/error_category"] != wire.ToolErrPermissionDenied {
		t.Errorf("error category not carried in _meta: %v", res.Meta)
	}
	want := []call{{"read", `{"path":"a"}`}, {"write", `{}`}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Invoker saw %v, want %v", got, want)
	}
}

func TestAgentErrorsAreMCPErrorsAndNeverInvoke(t *testing.T) {
	var n atomic.Int64
	s, cs := serve(t, func(context.Context, string, json.RawMessage) (wire.ToolInvokeResult, error) {
		n.Add(1)
		return wire.ToolInvokeResult{}, nil
	})
	ctx := ctx10(t)
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_everything", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), `unknown tool "delete_everything"`) {
		t.Errorf("unknown tool: err = %v, want an MCP error naming the tool", err)
	}
	for _, args := range []any{"just a string", []int{1, 2}, 42} {
		_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: args})
		if err == nil || !strings.Contains(err.Error(), "arguments must be a JSON object") {
			t.Errorf("arguments %v: err = %v, want an MCP error saying what is wrong", args, err)
		}
	}
	if n.Load() != 0 || s.Calls() != 0 {
		t.Errorf("the Invoker ran %d times (Calls %d) for calls the agent got wrong", n.Load(), s.Calls())
	}
}

func TestInvokerFailureIsAProtocolError(t *testing.T) {
	_, cs := serve(t, func(context.Context, string, json.RawMessage) (wire.ToolInvokeResult, error) {
		return wire.ToolInvokeResult{}, errors.New("harness connection closed")
	})
	_, err := cs.CallTool(ctx10(t), &mcp.CallToolParams{Name: "read", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "harness connection closed") {
		t.Errorf("err = %v, want the Invoker's error", err)
	}
}

func TestCancellationReachesTheInvoker(t *testing.T) {
	started := make(chan struct{})
	cancelled := make(chan struct{})
	_, cs := serve(t, func(ctx context.Context, _ string, _ json.RawMessage) (wire.ToolInvokeResult, error) {
		close(started)
		select {
		case <-ctx.Done():
			close(cancelled)
			return wire.ToolInvokeResult{}, ctx.Err()
		case <-time.After(10 * time.Second):
			return wire.ToolInvokeResult{}, errors.New("never cancelled")
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{}})
		errc <- err
	}()
	<-started
	cancel()
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the client cancelled its call; the Invoker's context never ended")
	}
	if err := <-errc; err == nil {
		t.Error("a cancelled call returned no error to the client")
	}
}

func TestManyConcurrentCallsOverlap(t *testing.T) {
	const n = 8
	var arrived sync.WaitGroup
	arrived.Add(n)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	_, cs := serve(t, func(_ context.Context, _ string, in json.RawMessage) (wire.ToolInvokeResult, error) {
		arrived.Done()
		// A barrier, not a timer: every call waits until all n started,
		// which only happens if the server runs them at the same time.
		select {
		case <-all:
			return wire.ToolInvokeResult{Output: in}, nil
		case <-time.After(10 * time.Second):
			return wire.ToolInvokeResult{}, errors.New("calls were not run concurrently")
		}
	})
	ctx := ctx10(t)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"i": i}})
			if err == nil && res.Content[0].(*mcp.TextContent).Text != fmt.Sprintf(`{"i":%d}`, i) {
				err = fmt.Errorf("call %d got %q", i, res.Content[0].(*mcp.TextContent).Text)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
}

func TestNoSessionIsVisible(t *testing.T) {
	s, err := New(testTools, func(context.Context, string, json.RawMessage) (wire.ToolInvokeResult, error) {
		return wire.ToolInvokeResult{}, nil
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	if s.Sessions() != 0 || s.Calls() != 0 {
		t.Errorf("a server nobody opened reports %d sessions, %d calls", s.Sessions(), s.Calls())
	}
}

func TestBadToolListsAreErrors(t *testing.T) {
	inv := func(context.Context, string, json.RawMessage) (wire.ToolInvokeResult, error) {
		return wire.ToolInvokeResult{}, nil
	}
	for name, tools := range map[string][]wire.ToolSchema{
		"duplicate":   {{Name: "a"}, {Name: "a"}},
		"array input": {{Name: "a", InputSchema: map[string]any{"type": "array"}}},
		"no name":     {{Description: "x"}},
		"not JSON":    {{Name: "a", InputSchema: map[string]any{"x": func() {}}}},
	} {
		if _, err := New(tools, inv, Options{}); err == nil {
			t.Errorf("%s: New accepted %+v", name, tools)
		}
	}
	if _, err := New(nil, nil, Options{}); err == nil {
		t.Error("New accepted a nil Invoker")
	}
}

func TestStdio(t *testing.T) {
	s, err := New(testTools, func(_ context.Context, tool string, _ json.RawMessage) (wire.ToolInvokeResult, error) {
		return wire.ToolInvokeResult{Output: json.RawMessage(`"stdio ` + tool + `"`)}, nil
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, sr, sw) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if txt := res.Content[0].(*mcp.TextContent).Text; txt != "stdio read" {
		t.Errorf("got %q", txt)
	}
	_ = cs.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Error("ServeStdio did not return after the client closed")
	}
}

func TestRender(t *testing.T) {
	for _, c := range []struct {
		out, text  string
		structured bool
	}{
		{``, "", false},
		{`null`, "", false},
		{`"a\nb"`, "a\nb", false},
		{`[1,2]`, "[1,2]", false},
		{`{"a":1}`, `{"a":1}`, true},
		{`3`, "3", false},
	} {
		r := Render(wire.ToolInvokeResult{Output: json.RawMessage(c.out)})
		if txt := r.Content[0].(*mcp.TextContent).Text; txt != c.text || (r.StructuredContent != nil) != c.structured {
			t.Errorf("Render(%s) = %q structured %v", c.out, txt, r.StructuredContent)
		}
	}
}
