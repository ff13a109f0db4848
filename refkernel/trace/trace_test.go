package trace

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agentconform/conform/refkernel/clock"
	"github.com/agentconform/conform/spec/wire"
)

type sink struct {
	mu    sync.Mutex
	spans []wire.Span
}

func (s *sink) Notify(method string, params any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if method == wire.NotifyTraceSpan {
		s.spans = append(s.spans, params.(wire.Span))
	}
}

func TestSpansAreForwardedOnEnd(t *testing.T) {
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clock.NewManual(start)
	out := &sink{}
	tr := New(Settings{Enabled: true, SessionID: "s1", Notifier: out, Clock: clk})

	ctx, session := tr.Start(context.Background(), wire.RoleSession, "session")
	_, turn := tr.Start(ctx, wire.RoleTurn, "turn", Turn("t1"), attribute.Int("turn", 1))
	clk.Advance(time.Second)
	turn.End()
	if len(out.spans) != 1 {
		t.Fatalf("turn span not sent synchronously on End: %d spans", len(out.spans))
	}
	session.End()
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	got, root := out.spans[0], out.spans[1]
	if got.Role != wire.RoleTurn || got.SessionID != "s1" || got.TurnID != "t1" || got.Name != "turn" {
		t.Fatalf("turn span %+v", got)
	}
	if got.ParentSpanID != root.SpanID || got.TraceID != root.TraceID || root.ParentSpanID != "" {
		t.Fatalf("parent links: turn %+v, session %+v", got, root)
	}
	if got.StartUnixNano != start.UnixNano() || got.EndUnixNano != start.Add(time.Second).UnixNano() {
		t.Fatalf("timestamps do not come from the injected clock: %+v", got)
	}
	if got.Attributes["turn"] != int64(1) || got.Attributes[wire.RoleAttribute] != nil {
		t.Fatalf("attributes %v", got.Attributes)
	}
}

func TestDisabledSendsNothing(t *testing.T) {
	out := &sink{}
	tr := New(Settings{Enabled: false, SessionID: "s1", Notifier: out})
	ctx, s := tr.Start(context.Background(), wire.RoleSession, "session")
	_, c := tr.Start(ctx, wire.RoleTurn, "turn")
	c.End()
	s.End()
	if len(out.spans) != 0 {
		t.Fatalf("sent %d spans with telemetry off", len(out.spans))
	}
}
