package trace

import (
	"context"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/spec/wire"
)

// exporter turns finished spans into trace/span notifications.
type exporter struct {
	notifier host.Notifier
}

func (e *exporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	for _, s := range spans {
		e.notifier.Notify(wire.NotifyTraceSpan, Convert(s))
	}
	return nil
}

func (e *exporter) Shutdown(context.Context) error { return nil }

// Convert maps one finished span to its wire form: the role, session and
// turn attributes become fields, every other attribute is kept as is.
func Convert(s sdktrace.ReadOnlySpan) wire.Span {
	w := wire.Span{
		TraceID:       s.SpanContext().TraceID().String(),
		SpanID:        s.SpanContext().SpanID().String(),
		Name:          s.Name(),
		StartUnixNano: s.StartTime().UnixNano(),
		EndUnixNano:   s.EndTime().UnixNano(),
	}
	if p := s.Parent(); p.IsValid() {
		w.ParentSpanID = p.SpanID().String()
	}
	for _, kv := range s.Attributes() {
		switch string(kv.Key) {
		case wire.RoleAttribute:
			w.Role = kv.Value.AsString()
		case AttrSessionID:
			w.SessionID = kv.Value.AsString()
		case AttrTurnID:
			w.TurnID = kv.Value.AsString()
		default:
			if w.Attributes == nil {
				w.Attributes = map[string]any{}
			}
			w.Attributes[string(kv.Key)] = kv.Value.AsInterface()
		}
	}
	return w
}
