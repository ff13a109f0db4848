package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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
	before := children()
	ep, err := adapter.Subprocess{Argv: []string{os.Args[0]}, Env: []string{"CONFORM_BENCH_PEER=1"}}.Launch(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	for _, pid := range children() {
		if !slices.Contains(before, pid) {
			benchPeer = pid
		}
	}
	b.Cleanup(func() { ep.Close() })
	conn := jsonrpc.New(ep.Out, ep.In, nil, func(context.Context, *jsonrpc.Request) (any, error) { return nil, nil }, jsonrpc.Options{Validate: benchValidate})
	conn.Start()
	b.Cleanup(func() { conn.Close() })
	// One round trip before the clock starts: the peer's start-up (and,
	// validating, its compiling the schemas) is not a round trip's cost.
	if err := conn.Call(context.Background(), wire.MethodInitialize, benchParams, nil); err != nil {
		b.Fatal(err)
	}
	return conn
}

var benchParams = wire.InitializeParams{ProtocolVersions: []string{wire.Version}, Harness: wire.Peer{Name: "bench", Version: "0"}}

// BenchmarkWireRoundTripPipelined keeps 32 requests in flight, as a run with
// several scenarios and concurrent tool calls does: throughput, not latency.
func BenchmarkWireRoundTripPipelined(b *testing.B) {
	conn := startPeer(b)
	b.SetParallelism(16)
	b.ResetTimer()
	cpu0 := cpuTime()
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
	// CPU per round trip, both processes: on a machine other work loads,
	// the throughput says as much about the neighbours as about the pipe;
	// the CPU each round trip costs does not, and on an idle machine the
	// pipelined throughput is bounded by the cores over it.
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/roundtrip")
	}
}

// benchPeer is the pid of the peer subprocess (0: not found).
var benchPeer int

// children are the pids of this process's children (Linux).
func children() []int {
	var out []int
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(s); err == nil {
				out = append(out, pid)
			}
		}
	}
	return out
}

// cpuTime is the user and system time of this process and of the peer so
// far; 0 where it cannot be read.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil || benchPeer == 0 {
		return 0
	}
	self := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", benchPeer))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses: utime and
	// stime are the 12th and 13th, in clock ticks of 1/100 s.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return self + time.Duration(ut+st)*10*time.Millisecond
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
