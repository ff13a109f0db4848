package steps

import (
	"fmt"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// TA-31 in a session tree (issue 29): a child's tool invokes must carry
// the child's own call_context, not its parent's. Which session and turn a
// call belongs to is read from the log, not from anything the kernel
// announces: the model reply that asked for the call was answered to a
// request of one session, in one turn, and the invoke must name both. The
// fake model numbers call ids per session, so one id may stand in the
// replies of several sessions; the invoke must match one of them.
func (s *Scenario) treeCallContexts() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	type origin struct{ session, turn string }
	asked := map[string][]origin{} // call id + tool → where a reply asked for it
	var invokes []calllog.Entry
	for _, e := range s.World.Log.Entries() {
		if e.Kind != calllog.Request {
			continue
		}
		switch p := e.Value.(type) {
		case wire.ModelStreamParams:
			for _, ev := range replyCalls(e) {
				k := ev.ID + "\x00" + ev.Name
				asked[k] = append(asked[k], origin{p.CallContext.SessionID, p.CallContext.TurnID})
			}
		case wire.ToolInvokeParams:
			invokes = append(invokes, e)
		}
	}
	children := 0
	for _, m := range s.World.Metas() {
		if m.SessionID != s.SessionID {
			children++
		}
	}
	if children == 0 {
		return notReached("no child session was started, so no child's invoke could carry another session's call_context")
	}
	checked := 0
	for _, e := range invokes {
		p := e.Value.(wire.ToolInvokeParams)
		from, ok := asked[p.CallID+"\x00"+p.Tool]
		if !ok {
			continue // a call no reply asked for is another check's business
		}
		checked++
		match := false
		for _, o := range from {
			if o.session == p.CallContext.SessionID && o.turn == p.CallContext.TurnID {
				match = true
				break
			}
		}
		if !match {
			return fmt.Errorf("invoke %s of %q (#%d) carried session_id %q and turn_id %q; the reply that asked for it came in session %q, turn %q",
				p.CallID, p.Tool, e.Seq, p.CallContext.SessionID, p.CallContext.TurnID, from[0].session, from[0].turn)
		}
	}
	if checked == 0 {
		return notReached("no tool invoke answered a call a model reply asked for")
	}
	return nil
}
