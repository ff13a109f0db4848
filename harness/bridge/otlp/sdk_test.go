package otlp

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentconform/conform/spec/wire"
)

// fixedIDs makes the SDK's ids deterministic so the recorded fixture is.
type fixedIDs struct {
	mu sync.Mutex
	n  uint64
}

func (g *fixedIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	return trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, g.NewSpanID(ctx, trace.TraceID{})
}

func (g *fixedIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n++
	var id trace.SpanID
	binary.BigEndian.PutUint64(id[:], g.n)
	return id
}

var t0 = time.Date(2026, 12, 5, 4, 0, 0, 0, time.UTC)

func at(ms int) trace.SpanStartEventOption {
	return trace.WithTimestamp(t0.Add(time.Duration(ms) * time.Millisecond))
}

// emitSession exports one agent session's spans through the OTel SDK's
// otlptracehttp exporter (a real OTLP client, protobuf, gzip) to endpoint.
func emitSession(t *testing.T, endpoint string) {
	t.Helper()
	ctx := context.Background()
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint+"/v1/traces"),
		otlptracehttp.WithCompression(otlptracehttp.GzipCompression))
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithIDGenerator(&fixedIDs{}),
		// A fixed resource: the default names the test binary and SDK version.
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "test-agent"))))
	tr := tp.Tracer("test-agent")
	role := func(r string) trace.SpanStartEventOption {
		return trace.WithAttributes(attribute.String(wire.RoleAttribute, r), attribute.String(AttrTurnID, "s-1/t1"))
	}
	end := func(sp trace.Span, ms int) { sp.End(trace.WithTimestamp(t0.Add(time.Duration(ms) * time.Millisecond))) }

	sctx, session := tr.Start(ctx, "agent.session", at(0), trace.WithAttributes(attribute.String(wire.RoleAttribute, wire.RoleSession)))
	tctx, turn := tr.Start(sctx, "agent.turn", at(10), role(wire.RoleTurn))
	_, model := tr.Start(tctx, "agent.llm", at(20), role(wire.RoleModelCall))
	end(model, 200)
	hctx, hook := tr.Start(tctx, "hooks.pre-tool-call", at(210), role(wire.RoleHookDispatch))
	_, sub1 := tr.Start(hctx, "hook.guard", at(211), role(wire.RoleHookSubscribe))
	end(sub1, 220)
	_, sub2 := tr.Start(hctx, "hook.audit", at(221), role(wire.RoleHookSubscribe))
	end(sub2, 230)
	end(hook, 231)
	_, policy := tr.Start(tctx, "policy", at(232), role(wire.RolePolicyChain))
	end(policy, 240)
	_, tool := tr.Start(tctx, "agent.tool", at(241), role(wire.RoleToolExec))
	end(tool, 300)
	_, internal := tr.Start(tctx, "agent.internal.cache", at(301)) // no role: counted, not forwarded
	end(internal, 302)
	end(turn, 310)
	end(session, 320)
	if err := tp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

type collect struct {
	mu    sync.Mutex
	spans []wire.Span
}

func (c *collect) add(s wire.Span) {
	c.mu.Lock()
	c.spans = append(c.spans, s)
	c.mu.Unlock()
}

const fixture = "testdata/agent-session.otlp.json"

// TestSDKProtobufAndRecordedJSON: the OTel SDK's exporter (protobuf, gzip)
// reaches the receiver and every role-carrying span arrives mapped; the
// same export, recorded as OTLP JSON (the fixture), maps to the same spans
// when posted as JSON, gzip or not.
func TestSDKProtobufAndRecordedJSON(t *testing.T) {
	var got collect
	rcv, err := New(got.add, Mapping{SessionID: "root-1"})
	if err != nil {
		t.Fatal(err)
	}
	var recorded []ptrace.Traces
	var recMu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if td, err := Decode(body, r.Header.Get("Content-Type"), r.Header.Get("Content-Encoding")); err == nil {
			recMu.Lock()
			recorded = append(recorded, td)
			recMu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rcv.Handler().ServeHTTP(w, r)
	}))
	defer srv.Close()
	emitSession(t, srv.URL)

	c := rcv.Counts()
	if c.Spans != 8 || c.Unmapped["agent.internal.cache"] != 1 || c.BadRequests != 0 {
		t.Fatalf("counts %+v: want 8 spans forwarded, the role-less one unmapped", c)
	}
	byName := map[string]wire.Span{}
	for _, s := range got.spans {
		byName[s.Name] = s
	}
	turn, model, session := byName["agent.turn"], byName["agent.llm"], byName["agent.session"]
	if session.ParentSpanID != "" || turn.ParentSpanID != session.SpanID || model.ParentSpanID != turn.SpanID {
		t.Errorf("parent links lost: session %+v turn %+v model %+v", session, turn, model)
	}
	if model.Role != wire.RoleModelCall || model.SessionID != "root-1" || model.TurnID != "s-1/t1" || model.TraceID != "4bf92f350102030405060708090a0b0c" {
		t.Errorf("model span mapped as %+v", model)
	}
	if model.StartUnixNano != t0.Add(20*time.Millisecond).UnixNano() || model.EndUnixNano != t0.Add(200*time.Millisecond).UnixNano() {
		t.Errorf("model span times %d..%d", model.StartUnixNano, model.EndUnixNano)
	}
	for _, s := range got.spans {
		raw, _ := json.Marshal(s)
		if err := wire.Validate(wire.NotifyTraceSpan, wire.PartParams, raw); err != nil {
			t.Errorf("span %s breaks the trace/span schema: %v", s.Name, err)
		}
	}

	// Record the fixture (what a real client sent, as OTLP JSON).
	all := ptrace.NewTraces()
	for _, td := range recorded {
		td.ResourceSpans().MoveAndAppendTo(all.ResourceSpans())
	}
	js, err := (&ptrace.JSONMarshaler{}).MarshalTraces(all)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(fixture, append(js, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(bytes.TrimSpace(want), js) {
		t.Errorf("the SDK's export no longer matches %s (run with -update if the change is intended)", fixture)
	}

	// The fixture as JSON, plain and gzip, maps to the same spans.
	for _, gz := range []bool{false, true} {
		var again collect
		r2, _ := New(again.add, Mapping{SessionID: "root-1"})
		body, enc := want, ""
		if gz {
			body, enc = gzipped(t, want), "gzip"
		}
		resp := post(t, r2.Handler(), "/v1/traces", "application/json", enc, body)
		if resp.Code != 200 || resp.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("JSON export answered %d %q: %s", resp.Code, resp.Header().Get("Content-Type"), resp.Body)
		}
		if len(again.spans) != len(got.spans) {
			t.Fatalf("gzip %v: JSON gave %d spans, protobuf %d", gz, len(again.spans), len(got.spans))
		}
		for i := range got.spans {
			a, b := got.spans[i], again.spans[i]
			if a.SpanID != b.SpanID || a.ParentSpanID != b.ParentSpanID || a.Role != b.Role || a.StartUnixNano != b.StartUnixNano || a.EndUnixNano != b.EndUnixNano {
				t.Errorf("span %d: protobuf %+v, JSON %+v", i, a, b)
			}
		}
	}
}

func TestFixtureFile(t *testing.T) {
	f, err := os.Open(filepath.Clean(fixture))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	td, err := ReadJSONFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if td.SpanCount() != 9 {
		t.Errorf("fixture holds %d spans, want 9", td.SpanCount())
	}
}
