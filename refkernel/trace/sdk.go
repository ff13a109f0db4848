package trace

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/agentconform/conform/refkernel/clock"
	"github.com/agentconform/conform/spec/wire"
)

// sdkTracer is one session's OpenTelemetry tracer. Each session gets its own
// provider because its exporter sends to that session's Host.
type sdkTracer struct {
	provider *sdktrace.TracerProvider
	tracer   oteltrace.Tracer
	clock    clock.Clock
	session  string
}

func newSDK(s Settings) *sdkTracer {
	c := s.Clock
	if c == nil {
		c = clock.System{}
	}
	p := sdktrace.NewTracerProvider(
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithSpanProcessor(sdktrace.NewSimpleSpanProcessor(&exporter{notifier: s.Notifier})),
	)
	return &sdkTracer{provider: p, tracer: p.Tracer("conform-refkernel"), clock: c, session: s.SessionID}
}

func (t *sdkTracer) Start(ctx context.Context, role, name string, attrs ...attribute.KeyValue) (context.Context, Span) {
	all := append([]attribute.KeyValue{
		attribute.String(wire.RoleAttribute, role),
		attribute.String(AttrSessionID, t.session),
	}, attrs...)
	opts := []oteltrace.SpanStartOption{
		oteltrace.WithAttributes(all...),
		oteltrace.WithTimestamp(t.clock.Now()),
	}
	if role == wire.RoleSession {
		opts = append(opts, oteltrace.WithNewRoot())
	}
	ctx, s := t.tracer.Start(ctx, name, opts...)
	return ctx, sdkSpan{span: s, clock: t.clock}
}

func (t *sdkTracer) Shutdown(ctx context.Context) error { return t.provider.Shutdown(ctx) }

type sdkSpan struct {
	span  oteltrace.Span
	clock clock.Clock
}

func (s sdkSpan) SetAttributes(kv ...attribute.KeyValue) { s.span.SetAttributes(kv...) }
func (s sdkSpan) End()                                   { s.span.End(oteltrace.WithTimestamp(s.clock.Now())) }
