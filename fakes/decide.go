package fakes

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/agentconform/conform/spec/wire"
)

// Other frontend connections (PA-16). The kernel's frontend/permission goes
// to the primary connection, the Frontend above; the harness plays any
// other connection by sending frontend/decide through the kernel connection
// (PROTOCOL.md §6.7).

// Decider is the kernel a second frontend connection sends its decisions
// to. The driver's kernel is one; the world reaches it through the kernel
// its root session was bound to (Agents.Bind).
type Decider interface {
	Decide(ctx context.Context, p wire.FrontendDecideParams) (wire.FrontendDecideResult, error)
}

// SentDecide is one frontend/decide the harness sent and its answer.
type SentDecide struct {
	Params   wire.FrontendDecideParams
	Seq      int // the log entry of the request
	Answered bool
	Result   wire.FrontendDecideResult
	Err      error // the kernel's error answer (e.g. method not found)
}

type sentDecide struct {
	rec  SentDecide
	done chan struct{}
}

var errNoDecider = errors.New("this harness has no kernel to send frontend/decide to")

// SendDecide sends a frontend/decide for the session of cc and returns a
// channel closed once the kernel has answered it (or the scenario ended).
// The request does not depend on any fake's own request: a kernel that
// cancels the permission request the fake is holding does not cancel the
// decision.
func (w *World) SendDecide(cc wire.CallContext, connection string, ds []wire.PlanDecision) <-chan struct{} {
	return w.sendDecide(cc, wire.FrontendDecideParams{SessionID: cc.SessionID, Connection: connection, Decisions: ds})
}

// SendInteractiveAnswer sends a frontend/decide that answers one
// interactive call of the session of cc, like SendDecide.
func (w *World) SendInteractiveAnswer(cc wire.CallContext, connection, callID, response string) <-chan struct{} {
	return w.sendDecide(cc, wire.FrontendDecideParams{SessionID: cc.SessionID, Connection: connection, Decisions: []wire.PlanDecision{},
		InteractiveResponses: []wire.InteractiveResponse{{CallID: callID, Response: response}}})
}

// SendDecideParams sends a frontend/decide as it is given, like SendDecide.
func (w *World) SendDecideParams(cc wire.CallContext, p wire.FrontendDecideParams) <-chan struct{} {
	return w.sendDecide(cc, p)
}

func (w *World) sendDecide(cc wire.CallContext, p wire.FrontendDecideParams) <-chan struct{} {
	connection := p.Connection
	raw, _ := json.Marshal(p)
	var ids []string
	for _, d := range p.Decisions {
		ids = append(ids, d.Decision+" "+d.PlanItemID)
	}
	for _, r := range p.InteractiveResponses {
		ids = append(ids, "answer "+r.CallID)
	}
	e := w.Log.Begin(KindHarness, wire.MethodFrontendDecide, cc.SessionID, cc.TurnID,
		"harness "+connection+" decides "+strings.Join(ids, ","), raw, p)
	s := &sentDecide{rec: SentDecide{Params: p, Seq: e.Seq}, done: make(chan struct{})}
	f := w.Frontend
	f.mu.Lock()
	f.sent = append(f.sent, s)
	f.mu.Unlock()

	w.Agents.mu.Lock()
	k, _ := w.Agents.kernel.(Decider)
	w.Agents.mu.Unlock()
	go func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { // the scenario's end gives up on the answer
			select {
			case <-w.done:
				cancel()
			case <-ctx.Done():
			}
		}()
		var res wire.FrontendDecideResult
		err := errNoDecider
		if k != nil {
			res, err = k.Decide(ctx, p)
		}
		w.Log.Finish(e, res, err)
		f.mu.Lock()
		s.rec.Answered, s.rec.Result, s.rec.Err = true, res, err
		f.mu.Unlock()
		close(s.done)
	}()
	return s.done
}

// DecideFirst scripts a second frontend connection that decides an item of
// a tool while the primary's permission request about it is pending: the
// primary's answer waits until the kernel has answered the decision (or
// withdrawn the permission request). Scripted answers of the tool are
// unchanged otherwise.
func (w *World) DecideFirst(tool, connection, decision string, primary Permission) {
	w.DecideFirstScoped(tool, connection, decision, wire.ScopeOnce, primary)
}

// DecideFirstScoped is DecideFirst with the second connection's decision
// under the given scope.
func (w *World) DecideFirstScoped(tool, connection, decision, scope string, primary Permission) {
	primary.Before = func(ctx context.Context, done <-chan struct{}, cc wire.CallContext, it wire.PlanItem) error {
		answered := w.SendDecide(cc, connection, []wire.PlanDecision{{PlanItemID: it.ID, Decision: decision, Scope: scope}})
		return await(ctx, done, answered)
	}
	w.Frontend.AddPermission(tool, primary)
}

// AnswerInteractiveFirst scripts a second frontend connection that answers
// each call of an interactive tool while the primary's frontend/interactive
// about it is pending: the primary's own answer (primary) waits until the
// kernel has answered the second connection (or withdrawn the request).
func (w *World) AnswerInteractiveFirst(tool, connection, response string, primary Interactive) {
	primary.Before = func(ctx context.Context, done <-chan struct{}, p wire.InteractiveParams) error {
		answered := w.SendInteractiveAnswer(p.CallContext, connection, p.CallID, response)
		return await(ctx, done, answered)
	}
	w.Frontend.SetInteractive(tool, primary)
}

// DecideWhileRunning scripts a second frontend connection that decides the
// item of each call to a tool once the kernel invokes it: the invoke is
// held until the kernel has answered the decision, then runs as scripted.
// The item is the one the kernel's permission request about that call
// carried; a call the frontend was never asked about is left alone.
func (w *World) DecideWhileRunning(tool, connection, decision string) {
	w.Tools.Update(tool, func(b *ToolBehavior) {
		b.OnStart = func(ctx context.Context, done <-chan struct{}, p wire.ToolInvokeParams) error {
			id := w.askedItem(p.CallContext.SessionID, p.CallID)
			if id == "" {
				return nil
			}
			answered := w.SendDecide(p.CallContext, connection, []wire.PlanDecision{{PlanItemID: id, Decision: decision, Scope: wire.ScopeOnce}})
			return await(ctx, done, answered)
		}
	})
}

// askedItem is the plan item id of a call, from the permission requests
// the session sent so far.
func (w *World) askedItem(session, callID string) string {
	return w.askedItemWhere(session, func(it wire.PlanItem) bool { return it.ToolCallID == callID })
}

// askedItemWhere is the id of the first item of the session's permission
// requests so far that match keeps.
func (w *World) askedItemWhere(session string, match func(wire.PlanItem) bool) string {
	for _, e := range w.Log.Entries() {
		if v, ok := e.Value.(wire.PermissionParams); ok && v.CallContext.SessionID == session {
			for _, it := range v.Items {
				if match(it) {
					return it.ID
				}
			}
		}
	}
	return ""
}

// Decisions are the frontend/decide requests sent so far and their
// answers, waiting up to wait for the unanswered ones.
func (f *Frontend) Decisions(wait time.Duration) []SentDecide {
	f.mu.Lock()
	sent := append([]*sentDecide(nil), f.sent...)
	f.mu.Unlock()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
wait:
	for _, s := range sent {
		select {
		case <-s.done:
		case <-deadline.C:
			break wait
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]SentDecide, len(sent))
	for i, s := range sent {
		out[i] = s.rec
	}
	return out
}
