package trace

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agentconform/conform/refkernel/clock"
	"github.com/agentconform/conform/refkernel/host"
)

// Attribute keys the exporter lifts into wire.Span fields.
const (
	AttrSessionID = "conform.session_id"
	AttrTurnID    = "conform.turn_id"
)

// Turn is the attribute tying a span to a turn.
func Turn(id string) attribute.KeyValue { return attribute.String(AttrTurnID, id) }

// Span is a started span.
type Span interface {
	SetAttributes(kv ...attribute.KeyValue)
	End()
}

// Tracer is the swappable tracing part. Parenthood follows ctx: Start
// returns a context carrying the new span.
type Tracer interface {
	Start(ctx context.Context, role, name string, attrs ...attribute.KeyValue) (context.Context, Span)
	// Shutdown flushes and releases the tracer at session end.
	Shutdown(ctx context.Context) error
}

// Settings is what a session's tracer is built from.
type Settings struct {
	Enabled   bool // config.telemetry
	SessionID string
	Notifier  host.Notifier
	Clock     clock.Clock
}

// Factory builds one session's tracer.
type Factory func(Settings) Tracer

// New is the reference factory: an OpenTelemetry SDK tracer when telemetry
// is on, Noop otherwise.
func New(s Settings) Tracer {
	if !s.Enabled {
		return Noop{}
	}
	return newSDK(s)
}

// Noop records nothing and sends nothing.
type Noop struct{}

// Start implements Tracer.
func (Noop) Start(ctx context.Context, _, _ string, _ ...attribute.KeyValue) (context.Context, Span) {
	return ctx, noopSpan{}
}

// Shutdown implements Tracer.
func (Noop) Shutdown(context.Context) error { return nil }

type noopSpan struct{}

func (noopSpan) SetAttributes(...attribute.KeyValue) {}
func (noopSpan) End()                                {}
