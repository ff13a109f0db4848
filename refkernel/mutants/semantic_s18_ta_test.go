package mutants

import (
	"context"
	"sync"

	"github.com/agentconform/conform/refkernel/hooks"
	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/refkernel/subagent"
	"github.com/agentconform/conform/spec/wire"
)

// The end of a session reported from a stale transcript (TA-18, PROTOCOL.md
// §8.3): a loop that commits a reply as "the final message" only when the
// next turn starts builds its session-end payload and end row from what it
// had committed when the loop stopped: the reply before the last one (none
// after a one-turn session). The session result, built from the last reply
// itself, is right, and so are the status, the dispatch count and the
// rows; it passed every TA-18 scenario until the check of commit 53c3d5b
// read final_message from the payload and the end row.
func init() {
	register(Mutant{Name: "semantic/s18-end-reports-previous-reply", Targets: []string{"TA-18"},
		Breaks:    "the session-end payload and the end session_meta row carry the reply before the last one as final_message (none after a one-turn session): the last reply is committed only when a next turn would start",
		PerKernel: true,
		Apply: func(p loop.Parts) loop.Parts {
			c := &committed{msgs: map[string][2]*wire.Message{}}
			p.Hooks = staleEnd{p.Hooks, c}
			p.Subagents = staleEndRow{subagent.Standard{}, c}
			return p
		}})
}

// committed holds, by session, the last two replies the model gave: the
// one committed as final and the one that came after it.
type committed struct {
	mu   sync.Mutex
	msgs map[string][2]*wire.Message // [committed, latest]
}

func (c *committed) reply(session string, m wire.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	last := c.msgs[session]
	c.msgs[session] = [2]*wire.Message{last[1], &m}
}

func (c *committed) final(session string) *wire.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.msgs[session][0]
}

// staleEnd sees every reply at post-model-response (dispatched whether or
// not anyone subscribes) and sends session-end the committed one.
type staleEnd struct {
	hooks.Dispatcher
	c *committed
}

func (d staleEnd) Dispatch(ctx context.Context, env hooks.Env, req hooks.Request) (hooks.Outcome, error) {
	switch {
	case req.Point == wire.PointPostModelResponse && req.Payload.Message != nil && len(req.Payload.Message.Content) > 0:
		d.c.reply(req.CallContext.SessionID, *req.Payload.Message)
	case req.Point == wire.PointSessionEnd:
		req.Payload.FinalMessage = d.c.final(req.CallContext.SessionID)
	}
	return d.Dispatcher.Dispatch(ctx, env, req)
}

// staleEndRow writes the committed reply into the end row.
type staleEndRow struct {
	subagent.Standard
	c *committed
}

func (p staleEndRow) Row(n *subagent.Node, m wire.SessionMeta) *wire.SessionMeta {
	if m.EndedAt != "" {
		m.FinalMessage = p.c.final(m.SessionID)
	}
	return p.Standard.Row(n, m)
}
