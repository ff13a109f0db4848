package driver

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/agentconform/conform/harness/adapter"
	"github.com/agentconform/conform/internal/jsonrpc"
	"github.com/agentconform/conform/spec/wire"
)

// TestMain turns the test binary into a minimal wire peer when asked, so the
// benchmark measures real round trips over a subprocess's pipes.
func TestMain(m *testing.M) {
	if os.Getenv("CONFORM_BENCH_PEER") == "1" {
		servePeer()
		return
	}
	os.Exit(m.Run())
}

func servePeer() {
	done := make(chan struct{})
	var conn *jsonrpc.Conn
	conn = jsonrpc.New(os.Stdin, os.Stdout, nil, func(ctx context.Context, r *jsonrpc.Request) (any, error) {
		if r.Method == wire.MethodShutdown {
			defer close(done)
			return wire.Empty{}, nil
		}
		return wire.InitializeResult{ProtocolVersion: wire.Version, Kernel: wire.Peer{Name: "bench-peer", Version: "0"}, Capabilities: []string{}}, nil
	}, jsonrpc.Options{Validate: benchValidate})
	conn.Start()
	select {
	case <-done:
	case <-conn.Done():
	}
}

func startPeer(b *testing.B) *jsonrpc.Conn {
	ep, err := adapter.Subprocess{Argv: []string{os.Args[0]}, Env: []string{"CONFORM_BENCH_PEER=1"}}.Launch(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ep.Close() })
	conn := jsonrpc.New(ep.Out, ep.In, nil, func(context.Context, *jsonrpc.Request) (any, error) { return nil, nil }, jsonrpc.Options{Validate: benchValidate})
	conn.Start()
	b.Cleanup(func() { conn.Close() })
	return conn
}

var benchParams = wire.InitializeParams{ProtocolVersions: []string{wire.Version}, Harness: wire.Peer{Name: "bench", Version: "0"}}

// BenchmarkWireRoundTripPipelined keeps 32 requests in flight, as a run with
// several scenarios and concurrent tool calls does: throughput, not latency.
func BenchmarkWireRoundTripPipelined(b *testing.B) {
	conn := startPeer(b)
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var res json.RawMessage
		for pb.Next() {
			if err := conn.Call(context.Background(), wire.MethodInitialize, benchParams, &res); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
}

// BenchmarkWireRoundTrip measures harness → subprocess → harness round trips
// with schema validation on both ends, as every scenario pays them.
func BenchmarkWireRoundTrip(b *testing.B) {
	conn := startPeer(b)
	params := benchParams
	var res json.RawMessage
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := conn.Call(context.Background(), wire.MethodInitialize, params, &res); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "roundtrips/s")
}

var benchValidate = func() func(string, jsonrpc.Part, json.RawMessage) error {
	if os.Getenv("CONFORM_BENCH_NOVALIDATE") == "1" {
		return nil
	}
	return validate
}()
