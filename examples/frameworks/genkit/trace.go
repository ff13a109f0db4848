package main

import (
	"context"
	"strings"
	"sync"

	"github.com/agentconform/conform/spec/wire"
	"github.com/firebase/genkit/go/core/tracing"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Genkit's own spans as trace/span (TA-17). Genkit traces with
// OpenTelemetry on its global tracer provider (core/tracing/tracing.go:109
// TracerProvider): a "generate" span per iteration of its tool loop
// (ai/generate.go:329-335, type util) and a span per action run
// (core/action.go:199-214, type "action", its subtype the action's type:
// "model" for the model call, "tool.v2" for a tool). A span processor
// registered on that provider, as Genkit's own telemetry exporter is
// (tracing.go:135 WriteTelemetryImmediate), sees every span end; the
// session a span belongs to comes from the context Generate was called
// with. Roles: generate → turn, model action → model_call, tool action →
// tool_execution. Genkit has no span for a policy or a hook (it has
// neither), so no span gets the roles policy_chain, hook_dispatch or
// hook_subscriber.

type runKey struct{}

// traced marks ctx as the session's, so that its spans reach it.
func traced(ctx context.Context, r *run) context.Context {
	return context.WithValue(ctx, runKey{}, r)
}

var exportOnce sync.Once

// exportSpans registers the processor on Genkit's tracer provider, once.
func exportSpans() {
	exportOnce.Do(func() { tracing.TracerProvider().RegisterSpanProcessor(&processor{open: map[string]opened{}}) })
}

type opened struct {
	r    *run
	turn string // the session's turn when the span started
}

type processor struct {
	mu   sync.Mutex
	open map[string]opened // span id → its session, while it runs
}

func (p *processor) OnStart(parent context.Context, s sdktrace.ReadWriteSpan) {
	r, _ := parent.Value(runKey{}).(*run)
	if r == nil || !r.s.Config.Telemetry {
		return
	}
	p.mu.Lock()
	p.open[s.SpanContext().SpanID().String()] = opened{r: r, turn: r.turnID()}
	p.mu.Unlock()
}

func (p *processor) OnEnd(s sdktrace.ReadOnlySpan) {
	id := s.SpanContext().SpanID().String()
	p.mu.Lock()
	o, ok := p.open[id]
	delete(p.open, id)
	p.mu.Unlock()
	if !ok {
		return
	}
	attrs := map[string]any{"genkit:type": "", "genkit:metadata:subtype": ""}
	for _, kv := range s.Attributes() {
		switch k := string(kv.Key); k {
		case "genkit:type", "genkit:metadata:subtype", "genkit:name", "genkit:path":
			attrs[k] = kv.Value.AsString()
		}
	}
	role, turn := "", o.turn
	switch {
	case attrs["genkit:type"] == "util" && s.Name() == "generate":
		role = wire.RoleTurn
		o.r.mu.Lock()
		turn = o.r.spans[id] // the turn its middleware began (model.go)
		o.r.mu.Unlock()
	case attrs["genkit:type"] == "action" && attrs["genkit:metadata:subtype"] == "model":
		role = wire.RoleModelCall
	case attrs["genkit:type"] == "action" && strings.HasPrefix(attrs["genkit:metadata:subtype"].(string), "tool"): // "tool.v2" in 1.4.0
		role = wire.RoleToolExec
	}
	span := wire.Span{TraceID: s.SpanContext().TraceID().String(), SpanID: id, Name: "genkit " + s.Name(), Role: role,
		SessionID: o.r.s.ID, TurnID: turn, StartUnixNano: s.StartTime().UnixNano(), EndUnixNano: s.EndTime().UnixNano(), Attributes: attrs}
	if s.Parent().IsValid() {
		span.ParentSpanID = s.Parent().SpanID().String()
	}
	o.r.s.Host.Span(span)
}

func (p *processor) Shutdown(context.Context) error   { return nil }
func (p *processor) ForceFlush(context.Context) error { return nil }
