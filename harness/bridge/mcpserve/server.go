package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentconform/conform/spec/wire"
)

// Invoker runs one tool call for the agent: the agent kernel's wrapper
// around kernelkit.Host.Invoke. A tool's own failure is a result with
// IsError; an error return means the call could not be made at all.
type Invoker func(ctx context.Context, tool string, input json.RawMessage) (wire.ToolInvokeResult, error)

// Options name the server to the agent.
type Options struct {
	// Name is the server's implementation name (default "conform").
	Name string
	// Version is its version (default "0").
	Version string
}

// Server is one session's MCP server.
type Server struct {
	mcp      *mcp.Server
	http     http.Handler
	invoke   Invoker
	sessions atomic.Int64
	calls    atomic.Int64
}

// New builds the server offering tools. Every tool name must be unique (the
// agent calls tools by name only) and every input schema an object schema
// (MCP requires it); a bad tool list is an error, never a panic.
func New(tools []wire.ToolSchema, invoke Invoker, opts Options) (*Server, error) {
	if invoke == nil {
		return nil, errors.New("mcpserve: no Invoker")
	}
	if opts.Name == "" {
		opts.Name = "conform"
	}
	if opts.Version == "" {
		opts.Version = "0"
	}
	s := &Server{invoke: invoke}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{
		InitializedHandler: func(context.Context, *mcp.InitializedRequest) { s.sessions.Add(1) },
		// Tools are always offered, even an empty list: an agent told about
		// the server must find the tools capability.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	seen := map[string]bool{}
	for i, t := range tools {
		if t.Name == "" {
			return nil, fmt.Errorf("mcpserve: tool %d has no name", i)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("mcpserve: two tools are named %q; an MCP client calls tools by name only", t.Name)
		}
		seen[t.Name] = true
		tool, err := mcpTool(t)
		if err != nil {
			return nil, err
		}
		s.mcp.AddTool(tool, s.handler(t.Name))
	}
	s.http = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil)
	return s, nil
}

// mcpTool is the MCP view of a tool: name, description, input schema, and
// the hints its declaration makes true (a data source reads only).
func mcpTool(t wire.ToolSchema) (*mcp.Tool, error) {
	schema := map[string]any{}
	maps.Copy(schema, t.InputSchema)
	switch typ, ok := schema["type"]; {
	case !ok:
		// A schema naming no type constrains nothing else: MCP needs it said.
		schema["type"] = "object"
	case typ != "object":
		return nil, fmt.Errorf("mcpserve: tool %q has an input schema of type %v; MCP tools take an object", t.Name, typ)
	}
	if _, err := json.Marshal(schema); err != nil {
		return nil, fmt.Errorf("mcpserve: tool %q: input schema is not JSON: %v", t.Name, err)
	}
	readOnly := t.Kind == wire.KindDataSource
	return &mcp.Tool{
		Name:        t.Name,
		Description: t.Description,
		InputSchema: schema,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: readOnly, IdempotentHint: t.Idempotent},
	}, nil
}

func (s *Server) handler(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := bytes.TrimSpace(req.Params.Arguments)
		if len(args) == 0 || bytes.Equal(args, []byte("null")) {
			// MCP lets a client leave out the arguments of a call.
			args = []byte("{}")
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(args, &obj); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("tools/call %q: arguments must be a JSON object, got %s", name, clip(args))}
		}
		s.calls.Add(1)
		res, err := s.invoke(ctx, name, json.RawMessage(args))
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: fmt.Sprintf("tools/call %q could not be run: %v", name, err)}
		}
		return Render(res), nil
	}
}

// Render is the MCP content of a tool result: a JSON string output is its
// text, any other output its JSON text; an object output is also the
// structured content; a tool error is isError with its category in _meta.
func Render(r wire.ToolInvokeResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{IsError: r.IsError, Content: []mcp.Content{}}
	raw := bytes.TrimSpace(r.Output)
	var text string
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
	case raw[0] == '"' && json.Unmarshal(raw, &text) == nil:
	default:
		text = string(raw)
		if raw[0] == '{' {
			var obj map[string]any
			if json.Unmarshal(raw, &obj) == nil {
				out.StructuredContent = obj
			}
		}
	}
	out.Content = append(out.Content, &mcp.TextContent{Text: text})
	if r.ErrorCategory != "" || r.Retryable {
		out.Meta = mcp.Meta{"conform/error_category": r.ErrorCategory, "conform/retryable": r.Retryable}
	}
	return out
}

func clip(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}

// Handler serves MCP over Streamable HTTP (one server, a session per
// client; the same handler every call, so sessions are never split).
// Mount it at the URL the agent's config names.
func (s *Server) Handler() http.Handler { return s.http }

// ServeStdio serves one client over newline-delimited JSON on in/out (MCP's
// stdio transport) until the client goes or ctx ends.
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	return s.mcp.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
}

// Sessions is how many clients completed MCP's initialization: zero after
// the agent ran means it never opened the tools it was given.
func (s *Server) Sessions() int { return int(s.sessions.Load()) }

// Calls is how many tools/call requests reached the Invoker.
func (s *Server) Calls() int { return int(s.calls.Load()) }
