package steps

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// Call context (TA-31) and trace ids kept out of persisted state (TA-32).

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the session works in "([^"]+)"$`), func(dir string) error {
			s.Cfg.WorkingDirectory = dir
			return nil
		})
		sc.Step(stepRE(`^every model request and tool invoke carried the session's call_context$`), s.proves(s.callContextPresent, "TA-31"))
		sc.Step(stepRE(`^the turn_id stayed the same within each turn and changed from turn to turn$`), s.proves(s.turnIDsPerTurn, "TA-31"))
		sc.Step(stepRE(`^the final-answer turn carried a turn_id of its own$`), s.proves(s.finalTurnID, "TA-31"))
		sc.Step(stepRE(`^every tool invoke of every session of the tree carried the call_context of the session and turn whose reply asked for it$`), s.proves(s.treeCallContexts, "TA-31"))
		sc.Step(stepRE(`^no trace or span id appears in any event, cost report, session row or plan item$`), s.proves(s.noTraceIDsPersisted, "TA-32"))
	})
}

// modelOrToolCC is the call_context of a model or tool request.
func modelOrToolCC(e calllog.Entry) (wire.CallContext, bool) {
	switch p := e.Value.(type) {
	case wire.ModelStreamParams:
		return p.CallContext, true
	case wire.ToolInvokeParams:
		return p.CallContext, true
	case wire.ToolPreviewParams:
		return p.CallContext, true
	}
	return wire.CallContext{}, false
}

// TA-31: every model request and every invoke names the session, a turn
// and the working directory.
func (s *Scenario) callContextPresent() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	// Every request of the scenario, whatever session it claims, so a
	// request with a wrong session id is not silently left out.
	n := 0
	for _, e := range s.World.Log.Entries() {
		if e.Kind != calllog.Request {
			continue
		}
		cc, ok := modelOrToolCC(e)
		if !ok {
			continue
		}
		n++
		switch {
		case cc.SessionID != s.SessionID:
			return fmt.Errorf("%s (#%d) carried call_context.session_id %q, the session is %q", e.Label, e.Seq, cc.SessionID, s.SessionID)
		case cc.TurnID == "":
			return fmt.Errorf("%s (#%d) carried an empty call_context.turn_id", e.Label, e.Seq)
		case cc.WorkingDirectory != s.Cfg.WorkingDirectory:
			return fmt.Errorf("%s (#%d) carried call_context.working_directory %q, the session works in %q", e.Label, e.Seq, cc.WorkingDirectory, s.Cfg.WorkingDirectory)
		}
	}
	if n == 0 {
		return fmt.Errorf("no model request or tool invoke was recorded")
	}
	for _, m := range s.World.Metas() {
		if m.SessionID != s.SessionID {
			return fmt.Errorf("a session_meta row names session %q; the scenario's only session is %q", m.SessionID, s.SessionID)
		}
	}
	return nil
}

// turnGroups splits the root session's model and tool requests into
// turns by their model requests: a turn's model request and the invokes and
// previews after it, up to the next turn's model request. Loop checks and
// retries belong to the turn they happen in. Counting turns by model
// request, not by context/assemble, keeps a step-order fault (TA-01) out of
// this check.
func (s *Scenario) turnGroups() [][]calllog.Entry {
	var out [][]calllog.Entry
	for _, e := range s.requests() {
		if _, ok := modelOrToolCC(e); !ok {
			continue
		}
		if p, isModel := e.Value.(wire.ModelStreamParams); isModel && p.Purpose != wire.PurposeLoopCheck && p.Attempt <= 1 {
			out = append(out, nil)
		}
		if len(out) == 0 {
			continue // a request before the first model request: no turn yet
		}
		out[len(out)-1] = append(out[len(out)-1], e)
	}
	return out
}

// TA-31: one turn_id per turn, a different one for every turn.
func (s *Scenario) turnIDsPerTurn() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	owner := map[string]int{}
	for i, turn := range s.turnGroups() {
		ti := i + 1
		id := ""
		for _, e := range turn {
			cc, _ := modelOrToolCC(e)
			switch {
			case id == "":
				id = cc.TurnID
			case cc.TurnID != id:
				return fmt.Errorf("turn %d's requests carried two turn_ids: %q and then %q at %s (#%d)", ti, id, cc.TurnID, e.Label, e.Seq)
			}
		}
		if id == "" {
			continue // the presence check names it
		}
		if prev, ok := owner[id]; ok {
			return fmt.Errorf("turns %d and %d carried the same turn_id %q", prev, ti, id)
		}
		owner[id] = ti
	}
	if len(owner) < 2 {
		return notReached("the kernel made model and tool requests in %d turn(s); a turn_id changing between turns needs two", len(owner))
	}
	return nil
}

// TA-31: the final-answer turn is a turn of its own: its model request
// carries a turn_id no earlier request carried.
func (s *Scenario) finalTurnID() error {
	e, n, err := s.finalOrNotReached()
	if err != nil {
		return err
	}
	cc, _ := modelOrToolCC(e)
	if cc.TurnID == "" {
		return fmt.Errorf("the final-answer request (model request %d, #%d) carried an empty turn_id", n, e.Seq)
	}
	for _, x := range s.requests() {
		if x.Seq >= e.Seq {
			break
		}
		if c, ok := modelOrToolCC(x); ok && c.TurnID == cc.TurnID {
			return fmt.Errorf("the final-answer request (model request %d, #%d) carried turn_id %q, which %s (#%d) of an earlier turn carried too; the final-answer turn is a turn of its own", n, e.Seq, cc.TurnID, x.Label, x.Seq)
		}
	}
	return nil
}

// TA-32: the trace and span ids the kernel reported in trace/span never
// appear in what it persists: events (plan_item rows among them), cost
// reports, session rows, and the plan items of plan-ready and permission
// requests.
func (s *Scenario) noTraceIDsPersisted() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ids := map[string]string{}
	for _, sp := range s.World.Spans() {
		if sp.TraceID != "" {
			ids[sp.TraceID] = "trace id"
		}
		if sp.SpanID != "" {
			ids[sp.SpanID] = "span id"
		}
	}
	if len(ids) == 0 {
		return unverifiable("the kernel reported no trace spans, so there were no trace or span ids to look for")
	}
	keys := make([]string, 0, len(ids))
	for id := range ids {
		keys = append(keys, id)
	}
	sort.Strings(keys)
	for _, e := range s.World.Log.Entries() {
		var where string
		var raw []byte
		switch {
		case e.Kind == calllog.Notification && e.Method != wire.NotifyTraceSpan:
			where, raw = e.Label, e.Params
		case e.Method == wire.MethodFrontendPermission:
			p, _ := e.Value.(wire.PermissionParams)
			where = "the plan items of " + e.Label
			raw, _ = json.Marshal(p.Items)
		case e.Method == wire.MethodHookDispatch:
			p, _ := e.Value.(wire.HookDispatchParams)
			if p.Payload.Plan == nil {
				continue
			}
			where = "the plan items of " + e.Label
			raw, _ = json.Marshal(p.Payload.Plan.Items)
		default:
			continue
		}
		text := string(raw)
		for _, id := range keys {
			if strings.Contains(text, id) {
				return fmt.Errorf("the %s %s appears in %s (#%d): %s", ids[id], id, where, e.Seq, truncate(text, 300))
			}
		}
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
