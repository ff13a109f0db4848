package plangate

import (
	"github.com/agentconform/conform/refkernel/host"
	"github.com/agentconform/conform/spec/wire"
)

// Interactive answers from several frontend connections (PA-16, the
// interactive half; PROTOCOL.md §6.7). While the kernel's
// frontend/interactive about a call is unanswered, another connection may
// answer the call with frontend/decide; the first answer, whichever
// connection sent it, is the call's result, and every later one goes to
// the Arbiter (Late with Interactive set).
//
// Reading (same as plan.late_permission_answer): an answer from another
// connection answers the call at once, but the kernel keeps waiting for
// the primary's frontend/interactive answer (no $/cancelRequest) and then
// rejects it as a late one with a frontend_error event naming connection
// "primary".

// waiting is one interactive call the gate knows, from the moment its
// frontend/interactive goes out.
type waiting struct {
	cc       wire.CallContext
	tool     string
	answered bool
	by       string
	response string
	open     bool // the call's result is not final yet
}

// lateInteractive is the Late of an answer to an already answered call.
func lateInteractive(w *waiting, callID, conn, response string) Late {
	return Late{
		Item:        wire.PlanItem{ToolCallID: callID, Tool: w.tool, Kind: wire.KindInteractive},
		First:       w.by,
		Connection:  conn,
		Open:        w.open,
		Interactive: true,
		Response:    response,
	}
}

// AwaitInteractive registers an interactive call whose frontend/interactive
// is about to go out: from now on another connection may answer it.
func (g *Gate) AwaitInteractive(cc wire.CallContext, callID, tool string) {
	g.dmu.Lock()
	defer g.dmu.Unlock()
	if g.calls == nil {
		g.calls = map[string]*waiting{}
	}
	g.calls[callID] = &waiting{cc: cc, tool: tool, open: true}
}

// InteractiveAnswered settles an interactive call once the primary's
// frontend/interactive is over. ok says the primary answered with
// response. It returns the call's result (the first answer) and whether
// any connection answered; from now on the call's result is final and any
// later answer is rejected.
func (g *Gate) InteractiveAnswered(callID string, response string, ok bool) (string, bool) {
	g.dmu.Lock()
	defer g.dmu.Unlock()
	w := g.calls[callID]
	if w == nil {
		return response, ok
	}
	defer func() { w.open = false }()
	if !ok {
		return w.response, w.answered
	}
	if !w.answered {
		w.answered, w.by, w.response = true, wire.ConnectionPrimary, response
		return response, true
	}
	switch g.cfg.Arbiter.Late(lateInteractive(w, callID, wire.ConnectionPrimary, response)) {
	case LateIgnore:
	case LateReplace:
		w.by, w.response = wire.ConnectionPrimary, response
	default:
		g.rejectInteractive(w.cc, wire.ConnectionPrimary, callID, "call "+callID+" was already answered by connection "+w.by)
	}
	return w.response, true
}

// offerInteractive applies one connection's answer to an interactive call.
func (g *Gate) offerInteractive(session, conn string, r wire.InteractiveResponse) wire.InteractiveOutcome {
	g.dmu.Lock()
	defer g.dmu.Unlock()
	w := g.calls[r.CallID]
	if w == nil {
		return g.rejectInteractive(wire.CallContext{SessionID: session}, conn, r.CallID, "no interactive call "+r.CallID+" awaits an answer in this session")
	}
	if !w.answered && w.open {
		w.answered, w.by, w.response = true, conn, r.Response
		return wire.InteractiveOutcome{CallID: r.CallID, Accepted: true}
	}
	switch g.cfg.Arbiter.Late(lateInteractive(w, r.CallID, conn, r.Response)) {
	case LateIgnore:
		return wire.InteractiveOutcome{CallID: r.CallID, Accepted: true}
	case LateReplace:
		if w.open {
			w.by, w.response = conn, r.Response
		}
		return wire.InteractiveOutcome{CallID: r.CallID, Accepted: true}
	}
	msg := "call " + r.CallID + " was already answered by connection " + w.by
	if !w.answered {
		msg = "interactive call " + r.CallID + " no longer awaits an answer"
	}
	return g.rejectInteractive(w.cc, conn, r.CallID, msg)
}

// rejectInteractive reports a late or stray interactive answer:
// INVALID_CLIENT_EVENT to the sender and a frontend_error event.
func (g *Gate) rejectInteractive(cc wire.CallContext, conn, callID, msg string) wire.InteractiveOutcome {
	host.Emit(g.cfg.Frontend, cc.SessionID, cc.TurnID, wire.EventFrontendError, host.KernelProducer, map[string]any{
		"connection": conn,
		"call_id":    callID,
		"category":   wire.FrontendErrInvalidClientEvent,
		"message":    msg,
	})
	return wire.InteractiveOutcome{CallID: callID, Category: wire.FrontendErrInvalidClientEvent, Message: msg}
}

// SubmitInteractive serves the interactive_responses of frontend/decide,
// each answer on its own, in the order sent.
func (g *Gate) SubmitInteractive(session, conn string, rs []wire.InteractiveResponse) []wire.InteractiveOutcome {
	if len(rs) == 0 {
		return nil
	}
	out := make([]wire.InteractiveOutcome, 0, len(rs))
	for _, r := range rs {
		out = append(out, g.offerInteractive(session, conn, r))
	}
	return out
}
