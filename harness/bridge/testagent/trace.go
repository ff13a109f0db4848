package testagent

import (
	"context"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Span names the test agent exports, as an agent names its own: no
// conform.role attribute, so the profile's span_roles must map them (the
// path a real agent's telemetry takes through the bridge).
const (
	SpanSession = "test_agent.session"
	SpanTurn    = "test_agent.turn"
	SpanModel   = "test_agent.model_request"
	SpanTool    = "test_agent.tool"
	SpanHook    = "test_agent.hook"
)

// newTracer exports the agent's spans with the OTel SDK's OTLP/HTTP
// exporter (protobuf) to base/v1/traces, batched as an agent would; the
// returned shutdown flushes them, and must run before the agent exits.
// Without a URL, spans go nowhere.
func newTracer(base string) (trace.Tracer, func(), error) {
	if base == "" {
		return noop.NewTracerProvider().Tracer(""), func() {}, nil
	}
	exp, err := otlptracehttp.New(context.Background(),
		otlptracehttp.WithEndpointURL(strings.TrimSuffix(base, "/")+"/v1/traces"),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}))
	if err != nil {
		return nil, nil, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "conform-test-agent"))))
	shutdown := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = tp.Shutdown(ctx)
	}
	return tp.Tracer("conform-test-agent"), shutdown, nil
}
