package bridge

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/agentconform/conform/harness/bridge/dialect"
	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

// The bridge's cost per model round trip: the same scripted reply fetched
// over the plain wire (model/stream over JSON-RPC on a pipe, what a wire
// kernel does) and through the bridge (the agent's SDK over HTTP on
// loopback to the dialect server, which makes that same wire call).
// Overhead = Bridge - Wire.

var benchReply = wire.ModelStreamResult{Events: []wire.StreamEvent{
	{Type: wire.EventTextDelta, Text: "reading"},
	{Type: wire.EventToolCall, ID: "call_1", Name: "read", Input: json.RawMessage(`{"path":"a"}`)},
	{Type: wire.EventUsage, Usage: &wire.Usage{InputTokens: 100, OutputTokens: 20}},
	{Type: wire.EventStop, StopReason: "tool_use"},
}}

// wirePair is a kernel-side connection whose harness answers model/stream
// with benchReply.
func wirePair(b *testing.B) *jsonrpc.Conn {
	hr, kw := io.Pipe()
	kr, hw := io.Pipe()
	harness := jsonrpc.New(hr, hw, hw, func(_ context.Context, req *jsonrpc.Request) (any, error) {
		var p wire.ModelStreamParams
		_ = json.Unmarshal(req.Params, &p)
		return benchReply, nil
	}, jsonrpc.Options{})
	kernel := jsonrpc.New(kr, kw, kw, nil, jsonrpc.Options{})
	harness.Start()
	kernel.Start()
	b.Cleanup(func() { kernel.Close(); harness.Close() })
	return kernel
}

func benchParams() wire.ModelStreamParams {
	return wire.ModelStreamParams{Purpose: "turn", Model: "m", Attempt: 1,
		Messages: []wire.Message{{Role: "user", Content: []wire.ContentBlock{{Type: "text", Text: "read a"}}}},
		Tools:    []wire.ToolSpec{{Name: "read", InputSchema: map[string]any{"type": "object"}}}}
}

func BenchmarkModelRoundTrip(b *testing.B) {
	b.Run("wire", func(b *testing.B) {
		k := wirePair(b)
		p := benchParams()
		for b.Loop() {
			var r wire.ModelStreamResult
			if err := k.Call(context.Background(), wire.MethodModelStream, p, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, stream := range []bool{false, true} {
		name := "bridge-anthropic"
		if stream {
			name += "-sse"
		}
		b.Run(name, func(b *testing.B) {
			k := wirePair(b)
			h, _ := dialect.New(dialect.Anthropic, func(ctx context.Context, p wire.ModelStreamParams) (wire.ModelStreamResult, error) {
				var r wire.ModelStreamResult
				err := k.Call(ctx, wire.MethodModelStream, p, &r)
				return r, err
			}, dialect.Options{})
			srv := httptest.NewServer(h)
			b.Cleanup(srv.Close)
			cl := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("dummy"), option.WithMaxRetries(0))
			p := anthropic.MessageNewParams{Model: "m", MaxTokens: 100, Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("read a"))},
				Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "read", InputSchema: anthropic.ToolInputSchemaParam{}}}}}
			for b.Loop() {
				if !stream {
					if _, err := cl.Messages.New(context.Background(), p); err != nil {
						b.Fatal(err)
					}
					continue
				}
				st := cl.Messages.NewStreaming(context.Background(), p)
				var m anthropic.Message
				for st.Next() {
					_ = m.Accumulate(st.Current())
				}
				if st.Err() != nil {
					b.Fatal(st.Err())
				}
			}
		})
	}
}
