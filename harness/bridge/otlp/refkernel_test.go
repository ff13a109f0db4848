package otlp

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/agentconform/conform/harness/steps"
	"github.com/agentconform/conform/refkernel/clock"
	"github.com/agentconform/conform/refkernel/ids"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// refHost is the harness as the reference loop sees it, reduced to what
// one traced session needs: agreeing hooks, a model that calls two tools
// then answers, tools that succeed; it keeps the spans the loop sends.
type refHost struct {
	mu     sync.Mutex
	models int
	spans  []wire.Span
}

func (h *refHost) Assemble(context.Context, wire.ContextAssembleParams) (wire.ContextAssembleResult, error) {
	return wire.ContextAssembleResult{}, nil
}

func (h *refHost) Hook(_ context.Context, p wire.HookDispatchParams) (wire.HookDispatchResult, error) {
	switch p.Mode {
	case wire.ModeTransform:
		payload := p.Payload
		return wire.HookDispatchResult{Outcome: wire.OutcomeTransform, Payload: &payload}, nil
	case wire.ModeVeto:
		return wire.HookDispatchResult{Outcome: wire.OutcomeVeto, Decision: wire.DecisionAllow}, nil
	}
	return wire.HookDispatchResult{Outcome: wire.OutcomeAck}, nil
}

func (h *refHost) Stream(context.Context, wire.ModelStreamParams) (wire.ModelStreamResult, error) {
	h.mu.Lock()
	h.models++
	n := h.models
	h.mu.Unlock()
	if n == 1 {
		return wire.ModelStreamResult{Events: []wire.StreamEvent{
			{Type: wire.EventToolCall, ID: "r", Name: "read", Input: json.RawMessage(`{}`)},
			{Type: wire.EventToolCall, ID: "w", Name: "write", Input: json.RawMessage(`{}`)},
			{Type: wire.EventStop, StopReason: "tool_use"},
		}}, nil
	}
	return wire.ModelStreamResult{Events: []wire.StreamEvent{{Type: wire.EventTextDelta, Text: "done"}, {Type: wire.EventStop, StopReason: "end_turn"}}}, nil
}

func (h *refHost) Invoke(context.Context, wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
	return wire.ToolInvokeResult{Output: json.RawMessage(`"ok"`)}, nil
}

func (h *refHost) Preview(context.Context, wire.ToolPreviewParams) (wire.ToolPreviewResult, error) {
	return wire.ToolPreviewResult{Preview: "p"}, nil
}

func (h *refHost) Permission(_ context.Context, p wire.PermissionParams) (wire.PermissionResult, error) {
	var res wire.PermissionResult
	for _, it := range p.Items {
		res.Decisions = append(res.Decisions, wire.PlanDecision{PlanItemID: it.ID, Decision: wire.DecisionAllow, Scope: wire.ScopeOnce})
	}
	return res, nil
}

func (h *refHost) Interactive(context.Context, wire.InteractiveParams) (wire.InteractiveResult, error) {
	return wire.InteractiveResult{Response: "yes"}, nil
}

func (h *refHost) Notify(method string, params any) {
	if sp, ok := params.(wire.Span); ok && method == wire.NotifyTraceSpan {
		h.mu.Lock()
		h.spans = append(h.spans, sp)
		h.mu.Unlock()
	}
}

// toOTLP is the reference kernel's spans as an OTLP export would carry
// them: ids as bytes, role, session and turn as attributes.
func toOTLP(t *testing.T, spans []wire.Span) ptrace.Traces {
	td := ptrace.NewTraces()
	ss := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans()
	for _, w := range spans {
		sp := ss.AppendEmpty()
		var tid pcommon.TraceID
		var sid, pid pcommon.SpanID
		mustHex(t, w.TraceID, tid[:])
		mustHex(t, w.SpanID, sid[:])
		sp.SetTraceID(tid)
		sp.SetSpanID(sid)
		if w.ParentSpanID != "" {
			mustHex(t, w.ParentSpanID, pid[:])
			sp.SetParentSpanID(pid)
		}
		sp.SetName(w.Name)
		sp.SetStartTimestamp(pcommon.Timestamp(w.StartUnixNano))
		sp.SetEndTimestamp(pcommon.Timestamp(w.EndUnixNano))
		sp.Attributes().PutStr(wire.RoleAttribute, w.Role)
		sp.Attributes().PutStr(AttrSessionID, w.SessionID)
		if w.TurnID != "" {
			sp.Attributes().PutStr(AttrTurnID, w.TurnID)
		}
	}
	return td
}

func mustHex(t *testing.T, s string, dst []byte) {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(dst) {
		t.Fatalf("id %q is not %d hex bytes", s, len(dst))
	}
	copy(dst, b)
}

// TestReferenceKernelTraceThroughTheReceiver: the reference loop's own
// spans of a real session (hooks everywhere, a read and a write, a real
// clock), exported as OTLP protobuf over loopback HTTP, come out of the
// receiver as the same wire spans, and the offline trace checks pass them:
// no correct kernel fails `conform trace check`.
func TestReferenceKernelTraceThroughTheReceiver(t *testing.T) {
	cfg := wire.SessionConfig{
		Profile: "test", WorkingDirectory: "/work", Telemetry: true,
		Model: wire.ModelSpec{Name: "fake-model", SupportsToolUse: true, SupportsParallelToolCalls: true, Pricing: wire.Pricing{Currency: "USD", Free: true}},
		Tools: []wire.ToolSchema{
			{Provider: "fs", Name: "read", Kind: wire.KindDataSource, Risk: "read_only", Concurrency: &wire.ConcurrencySpec{Safe: true}},
			{Provider: "fs", Name: "write", Kind: wire.KindResource, Risk: "low", Description: "write a file"},
		},
		Policy: wire.Policy{Rules: []wire.PolicyRule{{Name: "writes-ok", Tool: "write", Decision: "allow"}}},
		Hooks:  wire.Hooks{DefaultTimeoutMS: 5000},
	}
	for _, p := range wire.HookPoints {
		if p != wire.PointContextAssemble {
			cfg.Hooks.Subscribers = append(cfg.Hooks.Subscribers, wire.Subscriber{ID: "O-" + p, Point: p, Mode: wire.ModeObserve})
		}
	}
	h := &refHost{}
	s, err := loop.NewSession(loop.Setup{Parts: loop.DefaultParts(), Host: h, Clock: clock.System{}, IDs: ids.Sequence(),
		Params: wire.RunParams{SessionID: "s1", Prompt: "do the thing", Config: cfg}})
	if err != nil {
		t.Fatal(err)
	}
	if res := s.Run(context.Background()); res.Status != wire.StatusCompleted {
		t.Fatalf("the session ended %q", res.Status)
	}
	if len(h.spans) < 8 {
		t.Fatalf("the reference loop sent %d spans", len(h.spans))
	}

	var got collect
	rcv, err := New(got.add, Mapping{SessionID: "unused"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rcv.Handler())
	defer srv.Close()
	body, err := ptraceotlp.NewExportRequestFromTraces(toOTLP(t, h.spans)).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(srv.URL+"/v1/traces", "application/x-protobuf", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 200 || len(got.spans) != len(h.spans) {
		t.Fatalf("status %d, %d of %d spans came through", resp.StatusCode, len(got.spans), len(h.spans))
	}
	for i, w := range h.spans {
		g := got.spans[i]
		if g.TraceID != w.TraceID || g.SpanID != w.SpanID || g.ParentSpanID != w.ParentSpanID || g.Role != w.Role ||
			g.SessionID != w.SessionID || g.TurnID != w.TurnID || g.StartUnixNano != w.StartUnixNano || g.EndUnixNano != w.EndUnixNano {
			t.Errorf("span %d: sent %+v, received %+v", i, w, g)
		}
	}
	passed := map[string]bool{}
	for _, c := range steps.CheckTrace(got.spans) {
		if c.Status == steps.CheckFail {
			t.Errorf("%s %q failed the reference kernel's trace: %s", c.Requirement, c.Check, c.Message)
		}
		if c.Status == steps.CheckPass {
			passed[c.Check] = true
		}
	}
	if len(passed) != 6 {
		t.Errorf("%d of the 6 offline checks passed the reference trace (the others not reached): %v", len(passed), passed)
	}
}
