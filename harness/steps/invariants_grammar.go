package steps

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// Step grammar of TA-01: the phase of each request within its turn.
const (
	phAssemble = iota
	phPreModel
	phModel
	phPostModel
	phPreTool
	phReads
	phInteractive
	phPlan
	phApply
	phPostTool
	phPostApply
	phLoopCheck
	phSessionEnd
)

var phaseNames = []string{"context/assemble", "pre-model-call", "model request", "post-model-response",
	"pre-tool-call", "data_source invokes", "interactive calls", "plan-ready", "resource invokes",
	"post-tool-call", "post-apply", "loop check", "session-end"}

func (s *Scenario) phase(e calllog.Entry) int {
	switch p := e.Value.(type) {
	case wire.ContextAssembleParams:
		return phAssemble
	case wire.ModelStreamParams:
		if p.Purpose == wire.PurposeLoopCheck {
			return phLoopCheck
		}
		return phModel
	case wire.HookDispatchParams:
		switch p.Point {
		case wire.PointPreModelCall:
			return phPreModel
		case wire.PointPostModelResponse:
			return phPostModel
		case wire.PointPreToolCall:
			return phPreTool
		case wire.PointPlanReady:
			return phPlan
		case wire.PointPostToolCall:
			return phPostTool
		case wire.PointPostApply:
			return phPostApply
		case wire.PointSessionEnd:
			return phSessionEnd
		}
	case wire.ToolInvokeParams:
		if s.toolKind(p.Tool) == wire.KindResource {
			return phApply
		}
		return phReads
	case wire.InteractiveParams:
		return phInteractive
	case wire.PermissionParams, wire.ToolPreviewParams:
		return phPlan
	}
	return -1
}

// grammar checks that the requests of every turn come in step order, with
// one model request per turn and one invoke or interactive request per call
// of the reply. Two clauses belong to other requirements: a final-answer
// turn that runs anything breaks TA-21, and a turn that fired a bound
// without carrying out its calls breaks TA-19.
func (s *Scenario) grammar(v verdicts, _ int) {
	ts := s.turns()
	models := make([]*calllog.Entry, len(ts))
	for ti, turn := range ts {
		for _, e := range turn {
			if s.phase(e) == phModel {
				e := e
				models[ti] = &e
				break
			}
		}
	}
	for ti, turn := range ts {
		if ti == 0 {
			for _, e := range turn {
				if p, ok := e.Value.(wire.HookDispatchParams); !ok || (p.Point != wire.PointSessionStart && p.Point != wire.PointSessionEnd) {
					v.add("TA-01", "%s (#%d) came before the first turn's context/assemble", e.Label, e.Seq)
				}
			}
			continue
		}
		ph, nModels := -1, 0
		counts := map[int]int{}
		for _, e := range turn {
			p := s.phase(e)
			if p < 0 {
				continue
			}
			if p < ph {
				v.add("TA-01", "turn %d: %s (#%d, a %s step) came after a %s step", ti, e.Label, e.Seq, phaseNames[p], phaseNames[ph])
			}
			ph = max(ph, p)
			counts[p]++
			if p == phModel {
				nModels++
			}
		}
		if nModels != 1 {
			v.add("TA-01", "turn %d had %d model requests (not counting loop checks); a turn has exactly one", ti, nModels)
			continue
		}
		model := *models[ti]
		calls := replyCalls(model)
		if isFinalShape(model) || len(calls) == 0 {
			req := "TA-01"
			if isFinalShape(model) {
				req = "TA-21" // nothing in the final-answer turn runs
			}
			for p := phPreTool; p <= phLoopCheck; p++ {
				if counts[p] > 0 {
					v.add(req, "turn %d ended at its model reply (no tool calls, or the final-answer turn), yet it had a %s step", ti, phaseNames[p])
				}
			}
			continue
		}
		// The turn before a final-answer turn is the one whose bound fired;
		// its calls still run (TA-19).
		countReq := "TA-01"
		if ti+1 < len(ts) && models[ti+1] != nil && isFinalShape(*models[ti+1]) {
			countReq = "TA-19"
		}
		want := map[int]int{}
		for _, c := range calls {
			switch s.toolKind(c.Name) {
			case wire.KindDataSource:
				want[phReads]++
			case wire.KindInteractive:
				want[phInteractive]++
			case wire.KindResource:
				want[phApply]++
			}
		}
		for _, p := range []int{phReads, phInteractive} {
			if counts[p] != want[p] {
				v.add(countReq, "turn %d's reply holds %d calls for the %s step, the kernel made %d requests there", ti, want[p], phaseNames[p], counts[p])
			}
		}
		// One pre-tool-call dispatch per subscriber and call; the same for
		// post-tool-call, except in a terminal turn, where calls after the
		// terminal one may or may not run.
		terminal := s.terminalCall(calls) != ""
		want[phPreTool] = len(calls) * s.subscribersAt(wire.PointPreToolCall)
		want[phPostTool] = len(calls) * s.subscribersAt(wire.PointPostToolCall)
		checks := []int{phPreTool}
		if !terminal {
			checks = append(checks, phApply, phPostTool)
		}
		for _, p := range checks {
			if counts[p] != want[p] {
				v.add(countReq, "turn %d's reply holds %d tool calls, so its %s step should make %d requests; the kernel made %d", ti, len(calls), phaseNames[p], want[p], counts[p])
			}
		}
	}
}

// subscribersAt counts the subscribers declared at a point.
func (s *Scenario) subscribersAt(point string) int {
	n := 0
	for _, sub := range s.Cfg.Hooks.Subscribers {
		if sub.Point == point {
			n++
		}
	}
	return n
}

// once checks that the session ended once: one end session_meta row, and
// at most one session-end dispatch per subscriber, after the last model
// request.
func (s *Scenario) once(v verdicts) {
	if s.Result.Status == "" || s.Result.Status == wire.StatusRunning {
		v.add("TA-18", "the session/run answer carries status %q, not a final status", s.Result.Status)
	}
	for _, p := range s.startRowProblems() {
		v.add("TA-18", "%s", p)
	}
	ends := 0
	for _, m := range s.World.Metas() {
		if m.SessionID == s.SessionID && m.Status != wire.StatusRunning {
			ends++
			if m.Status != s.Result.Status {
				v.add("TA-18", "an end session_meta row says %q, the result says %q", m.Status, s.Result.Status)
			}
		}
	}
	if ends != 1 {
		v.add("TA-18", "expected exactly one end session_meta row, the kernel sent %d", ends)
	}
	subs := map[string]int{}
	for _, sub := range s.Cfg.Hooks.Subscribers {
		if sub.Point == wire.PointSessionEnd {
			subs[sub.ID]++
		}
	}
	if len(subs) == 0 {
		return
	}
	got := map[string]int{}
	lastModel := 0
	for _, e := range s.modelEntries() {
		lastModel = e.Seq
	}
	for _, e := range s.dispatchesAt(wire.PointSessionEnd) {
		p := e.Value.(wire.HookDispatchParams)
		got[p.Subscriber]++
		if e.Seq < lastModel {
			v.add("TA-18", "session-end was dispatched (#%d) before the last model request (#%d)", e.Seq, lastModel)
		}
	}
	for id, n := range subs {
		if got[id] != n {
			v.add("TA-18", "session-end was dispatched %d times to %q; it fires exactly once", got[id], id)
		}
	}
}

// startRowProblems are what the session's session_meta rows say wrong of
// its start (PROTOCOL.md §5, §8.3): one running row, sent when the session
// starts, and every row of the session agreeing on started_at and depth —
// a root at depth 0 unless the kernel reads depth as the remaining budget
// . A kernel that stamps each row when it sends it, or forgets the
// start, passed the end-row checks alone.
func (s *Scenario) startRowProblems() []string {
	var out []string
	starts := 0
	var first *wire.SessionMeta
	for _, m := range s.World.Metas() {
		if m.SessionID != s.SessionID {
			continue
		}
		if m.Status == wire.StatusRunning {
			starts++
		}
		if first == nil {
			first = &m
		} else if m.StartedAt != first.StartedAt || m.Depth != first.Depth {
			out = append(out, fmt.Sprintf("the session_meta rows disagree on the session's start: started_at %q and depth %d, then started_at %q and depth %d", first.StartedAt, first.Depth, m.StartedAt, m.Depth))
		}
		if s.env.Info.Readings["depth.meaning"] != "remaining" && m.Depth != 0 {
			out = append(out, fmt.Sprintf("the root session's %s session_meta row says depth %d; a root is at depth 0 (depth.meaning tree, the default)", m.Status, m.Depth))
		}
	}
	if starts != 1 {
		out = append(out, fmt.Sprintf("expected exactly one running session_meta row, sent when the session started, the kernel sent %d", starts))
	}
	return out
}

// startRow is TA-18's start side in the session's rows (startRowProblems).
func (s *Scenario) startRow() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if ps := s.startRowProblems(); len(ps) > 0 {
		return errors.New(strings.Join(ps, "; "))
	}
	return nil
}
