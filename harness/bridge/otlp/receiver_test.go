package otlp

import (
	"bytes"
	"compress/gzip"
	"flag"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agentconform/conform/spec/wire"
)

var update = flag.Bool("update", false, "rewrite the recorded fixture")

func post(t *testing.T, h http.Handler, path, ct, enc string, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest("POST", path, bytes.NewReader(body))
	req.Header.Set("Content-Type", ct)
	if enc != "" {
		req.Header.Set("Content-Encoding", enc)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func gzipped(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	_ = zw.Close()
	return buf.Bytes()
}

func TestBadBodiesAre400WithAMessage(t *testing.T) {
	r, _ := New(func(wire.Span) { t.Error("a span came out of a bad body") }, Mapping{SessionID: "s"})
	h := r.Handler()
	for _, c := range []struct {
		path, ct, enc string
		body          []byte
		code          int
		msg           string
	}{
		{"/v1/traces", "application/x-protobuf", "", []byte("\xff\xff\xff garbage"), 400, "not an OTLP trace export (protobuf)"},
		{"/v1/traces", "application/json", "", []byte(`{"resourceSpans": 7}`), 400, "not an OTLP trace export (JSON)"},
		{"/v1/traces", "application/json", "gzip", []byte(`{}`), 400, "says gzip but is not"},
		{"/v1/traces", "application/json", "br", []byte(`{}`), 400, `unsupported Content-Encoding "br"`},
		{"/v1/traces", "text/plain", "", []byte(`{}`), 415, "neither application/x-protobuf nor application/json"},
		{"/v1/logs", "application/json", "", []byte(`[`), 400, "not an OTLP logs export"},
		{"/v1/metrics", "application/x-protobuf", "", []byte("\xff\xff"), 400, "not an OTLP metrics export"},
	} {
		w := post(t, h, c.path, c.ct, c.enc, c.body)
		if w.Code != c.code || !strings.Contains(w.Body.String(), c.msg) {
			t.Errorf("%s %s %s: %d %q, want %d with %q", c.path, c.ct, c.enc, w.Code, w.Body.String(), c.code, c.msg)
		}
	}
	req := httptest.NewRequest("GET", "/v1/traces", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != 405 {
		t.Errorf("GET answered %d", w.Code)
	}
	if c := r.Counts(); c.BadRequests != 8 || c.Spans != 0 {
		t.Errorf("counts %+v", c)
	}
}

func TestLogsAndMetricsAreCounted(t *testing.T) {
	r, _ := New(func(wire.Span) {}, Mapping{SessionID: "s"})
	h := r.Handler()
	ld := plog.NewLogs()
	lrs := ld.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	lrs.AppendEmpty().Body().SetStr("api_request")
	lrs.AppendEmpty().Body().SetStr("tool_result")
	lj, _ := plogotlp.NewExportRequestFromLogs(ld).MarshalJSON()
	if w := post(t, h, "/v1/logs", "application/json", "gzip", gzipped(t, lj)); w.Code != 200 {
		t.Fatalf("logs: %d %s", w.Code, w.Body)
	}
	md := pmetric.NewMetrics()
	m := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("claude_code.token.usage")
	dps := m.SetEmptySum().DataPoints()
	for range 3 {
		dps.AppendEmpty().SetIntValue(7)
	}
	mp, _ := pmetricotlp.NewExportRequestFromMetrics(md).MarshalProto()
	if w := post(t, h, "/v1/metrics", "application/x-protobuf", "", mp); w.Code != 200 || w.Header().Get("Content-Type") != "application/x-protobuf" {
		t.Fatalf("metrics: %d %s", w.Code, w.Body)
	}
	if c := r.Counts(); c.LogRecords != 2 || c.DataPoints != 3 || c.Requests != 2 {
		t.Errorf("counts %+v, want 2 log records, 3 data points, 2 requests", c)
	}
}

func TestRoleRulesAndSessionAttribute(t *testing.T) {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	a := ss.AppendEmpty()
	a.SetName("codex.turn.42")
	a.SetTraceID([16]byte{1})
	a.SetSpanID([8]byte{1})
	b := ss.AppendEmpty()
	b.SetName("anything")
	b.SetTraceID([16]byte{1})
	b.SetSpanID([8]byte{2})
	b.Attributes().PutStr(wire.RoleAttribute, wire.RoleToolExec)
	b.Attributes().PutStr(AttrSessionID, "child-1")
	c := ss.AppendEmpty()
	c.SetName("other")
	c.Attributes().PutStr(wire.RoleAttribute, "not-a-role")
	spans, unmapped := Mapping{SessionID: "root", Roles: []RoleRule{{Name: "codex.turn*", Role: wire.RoleTurn}}}.Spans(td)
	if len(spans) != 2 || spans[0].Role != wire.RoleTurn || spans[0].SessionID != "root" || spans[1].SessionID != "child-1" || spans[1].Role != wire.RoleToolExec {
		t.Errorf("spans %+v", spans)
	}
	if len(unmapped) != 1 || unmapped[0] != "other" {
		t.Errorf("unmapped %v", unmapped)
	}
	if _, err := New(func(wire.Span) {}, Mapping{Roles: []RoleRule{{Name: "x", Role: "boss"}}}); err == nil {
		t.Error("a rule naming no role was accepted")
	}
	if _, err := New(nil, Mapping{}); err == nil {
		t.Error("no span func was accepted")
	}
}
