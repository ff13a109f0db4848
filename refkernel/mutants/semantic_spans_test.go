package mutants

import (
	"context"
	"slices"
	"sync"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/trace"
	"github.com/agentconform/conform/spec/wire"
)

// State kept in the wrong place (issue 29, HD-13.parallel-siblings): the
// tracer keeps one "current span" per session instead of following the
// context, the way a tracer with thread-local parenthood does, so a
// subscriber span started while another is still open becomes that one's
// child. Observers called one after another are traced right; observers in
// flight together are nested instead of siblings.
func init() {
	register(Mutant{Name: "semantic/concurrent-spans-nested", Targets: []string{"HD-13"},
		Breaks: "a hook_subscriber span started while another is open is parented to that one, so observers in flight together are nested, not siblings",
		Apply: func(p loop.Parts) loop.Parts {
			next := p.Tracer
			p.Tracer = func(s trace.Settings) trace.Tracer { return &currentSpan{Tracer: next(s)} }
			return p
		}})
}

type currentSpan struct {
	trace.Tracer
	mu   sync.Mutex
	open []*openSpan // the subscriber spans open now, in order of start
}

type openSpan struct {
	trace.Span
	ctx  context.Context
	done func()
}

func (o *openSpan) End() { o.done(); o.Span.End() }

func (t *currentSpan) Start(ctx context.Context, role, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if role != wire.RoleHookSubscribe {
		return t.Tracer.Start(ctx, role, name, attrs...)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := len(t.open); n > 0 {
		ctx = t.open[n-1].ctx
	}
	c, sp := t.Tracer.Start(ctx, role, name, attrs...)
	o := &openSpan{Span: sp, ctx: c}
	o.done = func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.open = slices.DeleteFunc(t.open, func(x *openSpan) bool { return x == o })
	}
	t.open = append(t.open, o)
	return c, o
}
