package steps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// Loop invariants: checks that hold for every session whatever its script,
// used by the generated scenarios of `conform fuzz` (harness/fuzz) and
// usable in any scenario. They judge the recorded log against the session's
// own config and the replies the fake model actually sent:
//
//   - every turn follows the step grammar of TA-01;
//   - the model is asked at most max_turns + 1 times;
//   - a bound that fires is followed by exactly one tool-less request, and
//     the status names the bound that fired first (TA-08, TA-19, TA-21);
//   - the doom loop fires exactly when the session-wide sequence of read
//     and resource calls ends in threshold identical hashes (A-01, TA-12,
//     TA-26), never earlier;
//   - the costs follow the declared pricing and add up (cost.go);
//   - the session ends exactly once (TA-18).
//
// Where the spec leaves a point open the walk accepts every reasonable
// reading: an interactive call may or may not break a doom-loop streak
// bounds due at the same step 17 may be reported in any order; a
// wall-clock bound near the edge of what the harness can measure may fire
// or not; an undeclared default threshold may be anything from 3 to 5. The
// walk follows what the kernel did wherever a reading is open, and flags
// only what no reading allows.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc *godog.ScenarioContext) {
		sc.Step(stepRE(`^every turn follows the documented step order$`), s.proves(func() error { return s.invariant(invGrammar) }, "TA-01"))
		sc.Step(stepRE(`^the model was asked no more than max_turns \+ 1 times$`), s.proves(func() error { return s.invariant(invCount) }, "TA-02"))
		sc.Step(stepRE(`^a fired bound was followed by exactly one tool-less request, and the status names the bound that fired first$`), s.proves(func() error { return s.invariant(invBound) }, "TA-08", "TA-19", "TA-21"))
		sc.Step(stepRE(`^the doom-loop detector fired exactly when the last calls were identical, never earlier$`), s.proves(func() error { return s.invariant(invDoom) }, "TA-12", "TA-26"))
		sc.Step(stepRE(`^the session ended exactly once$`), s.proves(func() error { return s.invariant(invOnce) }, "TA-18"))
	})
}

// Invariant categories.
const (
	invGrammar = "grammar"
	invCount   = "count"
	invBound   = "bound"
	invDoom    = "doom"
	invOnce    = "once"
)

func (s *Scenario) invariant(cat string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	v := s.walk()
	if msgs := v[cat]; len(msgs) > 0 {
		return fmt.Errorf("%s", strings.Join(msgs, "\n"))
	}
	return nil
}

// acceptable is one status the kernel may end with, and why.
type acceptable struct {
	why string
	ok  func(string) bool
}

func statusIs(st, why string) acceptable {
	return acceptable{why: fmt.Sprintf("%s (%s)", st, why), ok: func(x string) bool { return x == st }}
}

// walk judges the whole session once; the result maps a category to its
// violations.
func (s *Scenario) walk() map[string][]string {
	v := map[string][]string{}
	add := func(cat, format string, a ...any) { v[cat] = append(v[cat], fmt.Sprintf(format, a...)) }
	s.grammar(add)
	s.once(add)

	var turnReqs []calllog.Entry
	var checks []calllog.Entry
	for _, e := range s.modelEntries() {
		if p, _ := e.Value.(wire.ModelStreamParams); p.Purpose == wire.PurposeLoopCheck {
			checks = append(checks, e)
			continue
		}
		turnReqs = append(turnReqs, e)
	}
	if b := s.Cfg.Bounds.MaxTurns; b != nil && len(turnReqs) > *b+1 {
		add(invCount, "max_turns is %d, so the model may be asked at most %d times; the kernel asked it %d times", *b, *b+1, len(turnReqs))
	}
	if len(turnReqs) == 0 {
		add(invBound, "the kernel never asked the model (status %q)", s.Result.Status)
		return v
	}

	b := s.Cfg.Bounds
	lo, hi := s.doomThresholds()
	var seqInvisible, seqResets []string // interactive calls invisible, or breaking the streak
	cum := 0.0
	ordinary := 0
	status := s.Result.Status
	var pending []acceptable // the statuses allowed once the kernel took the limit path
	for i, e := range turnReqs {
		p := e.Value.(wire.ModelStreamParams)
		last := i == len(turnReqs)-1
		if len(p.Tools) == 0 { // the final-answer shape
			switch {
			case pending == nil:
				add(invBound, "model request %d offered no tools (the final-answer shape), but no bound had fired", s.nthOf(e))
			case !last:
				add(invBound, "after the final-answer request (model request %d) the kernel asked the model %d more times", s.nthOf(e), len(turnReqs)-1-i)
			default:
				s.checkStatus(add, pending, status)
			}
			return v
		}
		ordinary++
		cum += s.costOf(e)
		for _, c := range checks { // loop checks before step 17 of this turn count too
			if c.Seq > e.Seq && (last || c.Seq < turnReqs[i+1].Seq) {
				cum += s.costOf(c)
			}
		}
		calls := replyCalls(e)
		if len(calls) == 0 { // implicit done (TA-10)
			if !last {
				add(invBound, "model request %d's reply had no tool calls, which ends the loop, yet the kernel asked the model again", s.nthOf(e))
			} else if status != wire.StatusCompleted {
				add(invBound, "the session ended with a reply without tool calls, so its status must be completed; the kernel reported %q", status)
			}
			return v
		}
		if t := s.terminalCall(calls); t != "" { // TA-27
			if !last {
				add(invBound, "model request %d's reply called %q, a terminal tool whose executed call ends the loop, yet the kernel asked the model again", s.nthOf(e), t)
			} else if status != wire.StatusCompleted {
				add(invBound, "the session ended through the terminal tool %q, so its status must be completed; the kernel reported %q", t, status)
			}
			return v
		}
		for _, c := range calls {
			switch s.toolKind(c.Name) {
			case wire.KindDataSource, wire.KindResource:
				h := callHash(c.Name, c.Input)
				seqInvisible = append(seqInvisible, h)
				seqResets = append(seqResets, h)
			case wire.KindInteractive:
				seqResets = append(seqResets, fmt.Sprintf("interactive #%d", len(seqResets)))
			}
		}
		runMin, runMax := tailRun(seqResets), tailRun(seqInvisible)
		doomMust, doomMay := runMin >= hi, runMax >= lo
		doomWhy := fmt.Sprintf("the last %d read/resource calls were identical, threshold %s", runMax, thresholdText(lo, hi))

		type due struct {
			bound, status, why string
			must               bool
		}
		var dues []due
		if b.MaxTurns != nil && ordinary >= *b.MaxTurns {
			dues = append(dues, due{"max_turns", wire.StatusErrorMaxTurns, fmt.Sprintf("%d turns of %d", ordinary, *b.MaxTurns), true})
		}
		if b.MaxCostUSD != nil && cum >= *b.MaxCostUSD-costTolerance {
			dues = append(dues, due{"max_cost_usd", wire.StatusErrorMaxBudgetUSD, fmt.Sprintf("$%s spent of $%s", usd(cum), usd(*b.MaxCostUSD)), cum >= *b.MaxCostUSD+costTolerance})
		}
		if b.MaxWallClockS != nil {
			elo, ehi := s.elapsedAtStep17(e)
			w := time.Duration(*b.MaxWallClockS * float64(time.Second))
			if ehi >= w {
				dues = append(dues, due{"max_wall_clock_s", wire.StatusErrorMaxWallClock, fmt.Sprintf("between %v and %v elapsed of %v", elo.Round(time.Millisecond), ehi.Round(time.Millisecond), w), elo >= w})
			}
		}

		if last {
			var names []string
			for _, d := range dues {
				names = append(names, d.bound+" ("+d.why+")")
			}
			if doomMay {
				names = append(names, "the doom loop ("+doomWhy+")")
			}
			if len(names) > 0 {
				add(invBound, "after model request %d the kernel had to take the limit path (due: %s), but no final-answer request followed: the session ended %q", s.nthOf(e), strings.Join(names, "; "), status)
			} else {
				add(invBound, "the session ended %q after model request %d, whose reply asked for tools, with no bound due and without a final-answer turn", status, s.nthOf(e))
			}
			return v
		}
		if len(turnReqs[i+1].Value.(wire.ModelStreamParams).Tools) == 0 { // the kernel took the limit path
			pending = nil
			if doomMust {
				pending = append(pending, s.doomAcceptable(doomWhy))
			} else {
				if doomMay {
					pending = append(pending, s.doomAcceptable(doomWhy))
				}
				for _, d := range dues {
					pending = append(pending, statusIs(d.status, d.bound+": "+d.why))
				}
			}
			if len(pending) == 0 {
				msg := fmt.Sprintf("the kernel took the limit path after turn %d (model request %d offered no tools), but no bound was due: %d turns", ordinary, s.nthOf(turnReqs[i+1]), ordinary)
				if b.MaxTurns != nil {
					msg += fmt.Sprintf(" of %d", *b.MaxTurns)
				}
				msg += fmt.Sprintf(", $%s spent", usd(cum))
				if b.MaxCostUSD != nil {
					msg += fmt.Sprintf(" of $%s", usd(*b.MaxCostUSD))
				}
				msg += "; " + doomWhy
				add(invBound, "%s", msg)
				add(invDoom, "%s", msg)
				return v
			}
			continue
		}
		if doomMust {
			add(invDoom, "%s at step 16 of turn %d, but the kernel went on with another ordinary turn", doomWhy, ordinary)
		}
		for _, d := range dues {
			if d.must {
				add(invBound, "%s was due at step 17 of turn %d (%s), but the kernel went on with another ordinary turn", d.bound, ordinary, d.why)
			}
		}
		if doomMust || len(v[invBound]) > 0 {
			return v
		}
	}
	return v
}

func (s *Scenario) checkStatus(add func(string, string, ...any), allowed []acceptable, status string) {
	var whys []string
	for _, a := range allowed {
		if a.ok(status) {
			return
		}
		whys = append(whys, a.why)
	}
	add(invBound, "after the final-answer turn the session ended %q; the bound that fired first allows only %s", status, strings.Join(whys, " or "))
}

func (s *Scenario) doomAcceptable(why string) acceptable {
	_, want := s.doomStatusOK("")
	if d, ok := s.env.Info.Readings[readingDoomStatus]; ok && d != "" {
		want = d
	}
	return acceptable{why: fmt.Sprintf("the doom-loop status, %s (%s)", want, why), ok: func(x string) bool {
		ok, _ := s.doomStatusOK(x)
		return ok
	}}
}

// doomThresholds is the range the session's threshold lies in: the
// configured one, else the kernel's declared default, else 3 to 5.
func (s *Scenario) doomThresholds() (int, int) {
	if d := s.Cfg.DoomLoop; d != nil && d.Threshold != nil {
		return *d.Threshold, *d.Threshold
	}
	if r, ok := s.env.Info.Readings[readingDoomThreshold]; ok {
		if n, err := strconv.Atoi(r); err == nil {
			return n, n
		}
	}
	return 3, 5
}

func thresholdText(lo, hi int) string {
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d to %d", lo, hi)
}

// tailRun is the length of the run of identical entries at the end.
func tailRun(seq []string) int {
	n := 0
	for i := len(seq) - 1; i >= 0 && seq[i] == seq[len(seq)-1]; i-- {
		n++
	}
	return n
}

// callHash is the harness's own doom-loop identity of a call: the tool name
// and the input as canonical JSON (keys sorted, no whitespace; A-04).
func callHash(tool string, input json.RawMessage) string {
	return tool + "\x00" + string(canonicalJSON(input))
}

func canonicalJSON(raw json.RawMessage) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSpace(buf.Bytes())
}

// terminalCall names the first call of the reply to a terminal resource
// that was executed (A-19: only an executed call counts).
func (s *Scenario) terminalCall(calls []wire.StreamEvent) string {
	for _, c := range calls {
		for _, t := range s.Cfg.Tools {
			if t.Name != c.Name || !t.TerminatesTurn || t.Kind != wire.KindResource {
				continue
			}
			for _, e := range s.requests() {
				if e.Method == wire.MethodToolInvoke && callIDOf(e) == c.ID {
					return c.Name
				}
			}
		}
	}
	return ""
}

// costOf is what the reply to a model request costs by the declared
// pricing.
func (s *Scenario) costOf(e calllog.Entry) float64 {
	sum := 0.0
	for _, u := range replyUsages(e) {
		c, _, _ := ExpectedCost(s.Cfg.Model.Pricing, u, e.End)
		sum += c
	}
	return sum
}

// nthOf is the 1-based number of a model request among all of the root
// session's model requests.
func (s *Scenario) nthOf(e calllog.Entry) int {
	for i, m := range s.modelEntries() {
		if m.Seq == e.Seq {
			return i + 1
		}
	}
	return 0
}

// elapsedAtStep17 bounds what the kernel's clock can have read at step 17
// of the turn of model request e: at least from the first request of the
// session to the last answer of the turn, at most from session/run to the
// next request the kernel sent.
func (s *Scenario) elapsedAtStep17(e calllog.Entry) (time.Duration, time.Duration) {
	reqs := s.requests()
	if len(reqs) == 0 {
		return 0, 0
	}
	first := reqs[0].Start
	s.limits.mu.Lock()
	runAt := s.limits.runAt
	s.limits.mu.Unlock()
	if runAt.IsZero() {
		runAt = first
	}
	var turn []calllog.Entry
	for _, t := range s.turns() {
		for _, x := range t {
			if x.Seq == e.Seq {
				turn = t
			}
		}
	}
	lastEnd, lastSeq := e.End, e.EndSeq
	for _, x := range turn {
		if x.End.After(lastEnd) {
			lastEnd = x.End
		}
		lastSeq = max(lastSeq, x.Seq, x.EndSeq)
	}
	next := time.Now()
	for _, x := range reqs {
		if x.Seq > lastSeq {
			next = x.Start
			break
		}
	}
	return lastEnd.Sub(first), next.Sub(runAt)
}

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
// of the reply.
func (s *Scenario) grammar(add func(string, string, ...any)) {
	for ti, turn := range s.turns() {
		if ti == 0 {
			for _, e := range turn {
				if p, ok := e.Value.(wire.HookDispatchParams); !ok || (p.Point != wire.PointSessionStart && p.Point != wire.PointSessionEnd) {
					add(invGrammar, "%s (#%d) came before the first turn's context/assemble", e.Label, e.Seq)
				}
			}
			continue
		}
		ph, models := -1, 0
		var model calllog.Entry
		counts := map[int]int{}
		for _, e := range turn {
			p := s.phase(e)
			if p < 0 {
				continue
			}
			if p < ph {
				add(invGrammar, "turn %d: %s (#%d, a %s step) came after a %s step", ti, e.Label, e.Seq, phaseNames[p], phaseNames[ph])
			}
			ph = max(ph, p)
			counts[p]++
			if p == phModel {
				models++
				model = e
			}
		}
		if models != 1 {
			add(invGrammar, "turn %d had %d model requests (not counting loop checks); a turn has exactly one", ti, models)
			continue
		}
		calls := replyCalls(model)
		mp := model.Value.(wire.ModelStreamParams)
		if len(calls) == 0 || len(mp.Tools) == 0 {
			for p := phPreTool; p <= phLoopCheck; p++ {
				if counts[p] > 0 {
					add(invGrammar, "turn %d ended at its model reply (no tool calls, or the final-answer turn), yet it had a %s step", ti, phaseNames[p])
				}
			}
			continue
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
				add(invGrammar, "turn %d's reply holds %d calls for the %s step, the kernel made %d requests there", ti, want[p], phaseNames[p], counts[p])
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
				add(invGrammar, "turn %d's reply holds %d tool calls, so its %s step should make %d requests; the kernel made %d", ti, len(calls), phaseNames[p], want[p], counts[p])
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
func (s *Scenario) once(add func(string, string, ...any)) {
	if s.Result.Status == "" || s.Result.Status == wire.StatusRunning {
		add(invOnce, "the session/run answer carries status %q, not a final status", s.Result.Status)
	}
	ends := 0
	for _, m := range s.World.Metas() {
		if m.SessionID == s.SessionID && m.Status != wire.StatusRunning {
			ends++
			if m.Status != s.Result.Status {
				add(invOnce, "an end session_meta row says %q, the result says %q", m.Status, s.Result.Status)
			}
		}
	}
	if ends != 1 {
		add(invOnce, "expected exactly one end session_meta row, the kernel sent %d", ends)
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
			add(invOnce, "session-end was dispatched (#%d) before the last model request (#%d)", e.Seq, lastModel)
		}
	}
	for id, n := range subs {
		if got[id] != n {
			add(invOnce, "session-end was dispatched %d times to %q; it fires exactly once", got[id], id)
		}
	}
}
