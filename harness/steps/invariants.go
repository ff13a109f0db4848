package steps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// Loop invariants: checks that hold for every session whatever its script,
// used by the generated scenarios of `conform fuzz` (harness/fuzz) and
// usable in any scenario. They judge the recorded log against the session's
// own config and the replies the fake model actually sent. Each invariant
// proves one requirement, so a generated session that breaks one fails that
// requirement only:
//
//   - TA-01: every turn follows the step grammar, and a turn with tool calls
//     is followed by another turn or the limit path;
//   - TA-02: the model is asked at most max_turns + 1 times, and
//     max_turns fires when it is due, never earlier;
//   - TA-03, TA-04: the cost and wall-clock bounds never fire early;
//   - TA-19: every bound due at step 17 fires there, each tested on its own,
//     and the firing turn's calls still run;
//   - TA-08: a bound that fired is followed by exactly one final-answer
//     request, and the session does not fail;
//   - TA-20: the final-answer request withholds the tools and carries the
//     kernel's instruction;
//   - TA-21: nothing runs in the final-answer turn, and the status names the
//     bound that fired;
//   - TA-12: the doom loop fires exactly when the session-wide sequence of
//     read and resource calls ends in threshold identical hashes,
//     never earlier; TA-26: its ending takes the limit path;
//   - TA-10, TA-27: a reply without calls, or an executed terminal call,
//     ends the session completed;
//   - TA-18: the session ends exactly once;
//   - TA-24, TA-25 (invariants_cost.go): each event priced by the formula at
//     the one tier that holds it.
//
// Where the spec leaves a point open the walk accepts every reasonable
// reading: an interactive call may or may not break a doom-loop streak
// bounds due at the same step 17 may be reported in any order; a
// wall-clock bound near the edge of what the harness can measure may fire
// or not; an undeclared default threshold may be anything from 3 to 5. An
// invariant whose subject never occurred (no final-answer turn, no doom
// loop) is not reached.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		inv := func(text, id string) {
			sc.Step(stepRE(`^`+regexpQuote(text)+`$`), s.proves(func() error { return s.invariant(id) }, id))
		}
		for _, x := range Invariants {
			inv(x.Text, x.Requirement)
		}
		sc.Step(stepRE(`^every usage event was priced at the one tier that holds it$`), s.proves(s.pricedAtTier, "TA-25"))
		sc.Step(stepRE(`^every usage event was priced by the cost formula$`), s.proves(s.pricedByFormula, "TA-24"))
	})
}

// Invariant is one loop invariant step and the one requirement it proves.
type Invariant struct {
	Text        string
	Requirement string
}

// Invariants are the walk's invariant steps (the cost ones are separate).
var Invariants = []Invariant{
	{"every turn follows the documented step order", "TA-01"},
	{"max_turns fired when it was due and never earlier", "TA-02"},
	{"the cost bound never fired before it was due", "TA-03"},
	{"the wall-clock bound never fired before it was due", "TA-04"},
	{"every bound due at step 17 fired there, each checked on its own, after the turn's calls ran", "TA-19"},
	{"a fired bound was followed by exactly one final-answer request, and the session did not fail", "TA-08"},
	{"every final-answer request offered no tools and carried the kernel's instruction", "TA-20"},
	{"nothing ran in the final-answer turn, and the status named the bound that fired", "TA-21"},
	{"the doom-loop detector fired exactly when the last calls were identical, never earlier", "TA-12"},
	{"a doom-loop ending took the limit path, not an error", "TA-26"},
	{"a reply without tool calls ended the session completed", "TA-10"},
	{"an executed call to a terminal tool ended the session completed", "TA-27"},
	{"the session ended exactly once", "TA-18"},
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// verdicts is what the walk found: violations by requirement, and which
// requirements' subjects occurred at all.
type verdicts struct {
	bad     map[string][]string
	reached map[string]bool
}

func (v verdicts) add(id, format string, a ...any) {
	v.bad[id] = append(v.bad[id], fmt.Sprintf(format, a...))
	v.reached[id] = true
}

func (s *Scenario) invariant(id string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	// Every invariant of a case reads the same walk: it is made once per
	// state of the log, not once per check (issue 25).
	if seq := s.World.Log.Seq(); s.walked.bad == nil || s.walkedSeq != seq {
		s.walked, s.walkedSeq = s.walk(), seq
	}
	v := s.walked
	if msgs := v.bad[id]; len(msgs) > 0 {
		return fmt.Errorf("%s", strings.Join(msgs, "\n"))
	}
	if !v.reached[id] {
		return notReached("the generated session never reached what this invariant is about")
	}
	return nil
}

// acceptable is one status the kernel may end with, and why.
type acceptable struct {
	why  string
	ok   func(string) bool
	doom bool
}

func statusIs(st, why string) acceptable {
	return acceptable{why: fmt.Sprintf("%s (%s)", st, why), ok: func(x string) bool { return x == st }}
}

// due is a bound due at step 17 of a turn.
type due struct {
	bound, status, why, req string
	must                    bool
}

// isFinalShape says whether a turn request is a final-answer request: the
// kernel labels it so, or it withholds every tool (in a generated session
// every ordinary request offers the tools). A request that offers them is
// one only as finalAnswerAt says.
func isFinalShape(e calllog.Entry) bool {
	p, _ := e.Value.(wire.ModelStreamParams)
	return p.Purpose == wire.PurposeFinalAnswer || len(p.Tools) == 0
}

// walk judges the whole session once.
func (s *Scenario) walk() verdicts {
	v := verdicts{bad: map[string][]string{}, reached: map[string]bool{"TA-01": true, "TA-02": true, "TA-18": true}}
	s.once(v)

	var turnReqs, checks []calllog.Entry
	for _, e := range s.modelEntries() {
		if p, _ := e.Value.(wire.ModelStreamParams); p.Purpose == wire.PurposeLoopCheck {
			checks = append(checks, e)
			continue
		}
		turnReqs = append(turnReqs, e)
	}
	finalAt := -1
	for i, e := range turnReqs {
		if isFinalShape(e) {
			finalAt = i
			break
		}
	}
	if finalAt < 0 {
		// The last request may still show itself the final answer by an
		// instruction alone: the same reading as the scenario checks'
		// (finalAnswerAt), so TA-02 and TA-08 agree about it here too.
		finalAt = s.finalAnswerAt(turnReqs)
	}
	s.grammar(v, finalAt)
	b := s.Cfg.Bounds
	if b.MaxCostUSD != nil {
		v.reached["TA-03"] = true
	}
	if b.MaxWallClockS != nil {
		v.reached["TA-04"] = true
	}
	if b.MaxTurns != nil && len(turnReqs) > *b.MaxTurns+1 {
		v.add("TA-02", "max_turns is %d, so the model may be asked at most %d times; the kernel asked it %d times", *b.MaxTurns, *b.MaxTurns+1, len(turnReqs))
	}
	if len(turnReqs) == 0 {
		v.add("TA-01", "the kernel never asked the model (status %q)", s.Result.Status)
		return v
	}
	if finalAt == 0 {
		s.earlyLimit(v, turnReqs[0], "before any turn had run")
		return v
	}

	stop := false
	lo, hi := s.doomThresholds()
	var seqInvisible, seqResets []string // interactive calls invisible, or breaking the streak
	cum := 0.0
	ordinary := 0
	status := s.Result.Status
	for i, e := range turnReqs {
		last := i == len(turnReqs)-1
		ordinary++
		cum += s.costOf(e)
		for _, c := range checks { // loop checks before step 17 of this turn count too
			if c.Seq > e.Seq && (last || c.Seq < turnReqs[i+1].Seq) {
				cum += s.costOf(c)
			}
		}
		calls := replyCalls(e)
		if len(calls) == 0 { // implicit done (TA-10)
			v.reached["TA-10"] = true
			if !last {
				v.add("TA-10", "model request %d's reply had no tool calls, which ends the loop, yet the kernel asked the model again", s.nthOf(e))
			} else if status != wire.StatusCompleted {
				v.add("TA-10", "the session ended with a reply without tool calls, so its status must be completed; the kernel reported %q", status)
			}
			return v
		}
		if t := s.terminalCall(calls); t != "" { // TA-27
			v.reached["TA-27"] = true
			if !last {
				v.add("TA-27", "model request %d's reply called %q, a terminal tool whose executed call ends the loop, yet the kernel asked the model again", s.nthOf(e), t)
			} else if status != wire.StatusCompleted {
				v.add("TA-27", "the session ended through the terminal tool %q, so its status must be completed; the kernel reported %q", t, status)
			}
			return v
		}
		for _, c := range calls {
			switch s.toolKind(c.Name) {
			case wire.KindDataSource, wire.KindResource:
				h := callHash(c.Name, c.Input)
				seqInvisible = append(seqInvisible, h)
				seqResets = append(seqResets, h)
				v.reached["TA-12"] = true
			case wire.KindInteractive:
				seqResets = append(seqResets, fmt.Sprintf("interactive #%d", len(seqResets)))
			}
		}
		runMin, runMax := tailRun(seqResets), tailRun(seqInvisible)
		doomMust, doomMay := runMin >= hi, runMax >= lo
		doomWhy := fmt.Sprintf("the last %d read/resource calls were identical, threshold %s", runMax, thresholdText(lo, hi))
		dues := s.dues(e, ordinary, cum)
		if len(dues) > 0 {
			v.reached["TA-19"] = true
		}

		if last {
			var names []string
			for _, d := range dues {
				names = append(names, d.bound+" ("+d.why+")")
			}
			if doomMay {
				names = append(names, "the doom loop ("+doomWhy+")")
			}
			switch {
			case len(dues) > 0:
				v.add("TA-08", "after model request %d the kernel had to take the limit path (due: %s), but no final-answer request followed: the session ended %q", s.nthOf(e), strings.Join(names, "; "), status)
			case doomMay:
				v.add("TA-26", "after model request %d the doom loop was due (%s), but no final-answer request followed: the session ended %q", s.nthOf(e), doomWhy, status)
			default:
				v.add("TA-01", "the session ended %q after model request %d, whose reply asked for tools, with no bound due and without a final-answer turn", status, s.nthOf(e))
			}
			return v
		}
		if i+1 == finalAt { // the kernel took the limit path after this turn
			var pending []acceptable
			if doomMay {
				pending = append(pending, s.doomAcceptable(doomWhy))
				v.reached["TA-26"] = true
			}
			if !doomMust {
				for _, d := range dues {
					pending = append(pending, statusIs(d.status, d.bound+": "+d.why))
				}
			}
			if len(pending) == 0 {
				s.earlyLimit(v, turnReqs[i+1], fmt.Sprintf("after turn %d with no bound due (%d turns, $%s spent; %s)", ordinary, ordinary, usd(cum), doomWhy))
				return v
			}
			if !doomMay && s.doomAcceptable(doomWhy).ok(status) && !anyStatus(pending, status) {
				// The ending names the doom loop, which was not due: the
				// detector fired early (TA-12), and a bound due at the
				// same step does not make the status TA-21's.
				v.reached["TA-12"] = true
				v.add("TA-12", "the session ended %q, the kernel's doom-loop status, after turn %d, but the doom loop was not due (%s)", status, ordinary, doomWhy)
				return v
			}
			if doomMust && !anyStatus(pending, status) && anyDueStatus(dues, status) {
				if !s.ranCalls(e, calls) {
					// The kernel never ran the turn's calls (it checked its
					// bounds before them: TA-19's fault, found by the
					// step-order invariant), so it never got to step 16
					// either: TA-12 is not reached in this case, neither
					// blamed nor passed.
					delete(v.reached, "TA-12")
				} else {
					// The doom loop (step 16) was due, yet the ending names
					// a bound of step 17: the detector did not fire (TA-12);
					// the limit path itself was taken.
					v.add("TA-12", "%s at step 16 of turn %d, but the session ended %q, the status of a bound due at step 17: the detector did not fire", doomWhy, ordinary, status)
					return v
				}
			}
			s.judgeFinal(v, turnReqs, finalAt, pending)
			return v
		}
		if doomMust {
			v.add("TA-12", "%s at step 16 of turn %d, but the kernel went on with another ordinary turn", doomWhy, ordinary)
			stop = true
		}
		for _, d := range dues {
			if d.must {
				v.add(d.req, "%s was due at step 17 of turn %d (%s), but the kernel went on with another ordinary turn", d.bound, ordinary, d.why)
				stop = true
			}
		}
		if stop {
			return v
		}
	}
	return v
}

// anyStatus reports whether one of the acceptable endings allows status.
func anyStatus(as []acceptable, status string) bool {
	for _, a := range as {
		if a.ok(status) {
			return true
		}
	}
	return false
}

// anyDueStatus reports whether status is the status of one of the dues.
func anyDueStatus(dues []due, status string) bool {
	for _, d := range dues {
		if d.status == status {
			return true
		}
	}
	return false
}

// wallTolerance is the measurement slack at a wall-clock bound's edge.
const wallTolerance = time.Millisecond

// dues are the bounds due at step 17 of the turn of model request e. A
// turn bound ignored is TA-02's; a cost or wall-clock bound ignored is
// TA-19's, since every generated session also has a turn cap: the bound
// was not tested on its own.
func (s *Scenario) dues(e calllog.Entry, ordinary int, cum float64) []due {
	b := s.Cfg.Bounds
	var out []due
	if b.MaxTurns != nil && ordinary >= *b.MaxTurns {
		out = append(out, due{"max_turns", wire.StatusErrorMaxTurns, fmt.Sprintf("%d turns of %d", ordinary, *b.MaxTurns), "TA-02", true})
	}
	if b.MaxCostUSD != nil && cum >= *b.MaxCostUSD-costTolerance {
		out = append(out, due{"max_cost_usd", wire.StatusErrorMaxBudgetUSD, fmt.Sprintf("$%s spent of $%s", usd(cum), usd(*b.MaxCostUSD)), "TA-19", cum >= *b.MaxCostUSD+costTolerance})
	}
	if b.MaxWallClockS != nil {
		elo, ehi := s.elapsedAtStep17(e)
		w := time.Duration(*b.MaxWallClockS * float64(time.Second))
		// The kernel's clock and the harness's are read microseconds apart:
		// within wallTolerance of the bound, firing and not firing are
		// both allowed.
		if ehi >= w-wallTolerance {
			out = append(out, due{"max_wall_clock_s", wire.StatusErrorMaxWallClock, fmt.Sprintf("between %v and %v elapsed of %v", elo.Round(time.Millisecond), ehi.Round(time.Millisecond), w), "TA-19", elo >= w+wallTolerance})
		}
	}
	return out
}

// judgeFinal judges the final-answer request at turnReqs[at] and the end of
// the session, once the kernel took the limit path with these statuses
// allowed.
func (s *Scenario) judgeFinal(v verdicts, turnReqs []calllog.Entry, at int, allowed []acceptable) {
	f := turnReqs[at]
	n := s.nthOf(f)
	v.reached["TA-08"], v.reached["TA-20"], v.reached["TA-21"] = true, true, true
	onlyDoom := len(allowed) == 1 && allowed[0].doom
	endReq := "TA-08"
	if onlyDoom {
		endReq = "TA-26"
	}
	if p, _ := f.Value.(wire.ModelStreamParams); len(p.Tools) > 0 {
		v.add("TA-20", "the final-answer request (model request %d) still offered %d tools", n, len(p.Tools))
	}
	if err := s.requestCarriedInstruction(strconv.Itoa(n)); err != nil {
		if st, _ := classify(err); st == CheckFail {
			v.add("TA-20", "%v", err)
		}
	}
	if extra := len(turnReqs) - at - 1; extra > 0 {
		v.add(endReq, "after the final-answer request (model request %d) the kernel asked the model %d more times", n, extra)
	}
	status := s.Result.Status
	if status == wire.StatusFailed {
		v.add(endReq, "after the final-answer turn the session ended %q; a fired bound never ends the session as failed (error: %s)", status, s.Result.Error)
		return
	}
	var whys []string
	for _, a := range allowed {
		if a.ok(status) {
			if a.doom {
				s.noteDoomStatus(status)
			}
			return
		}
		whys = append(whys, a.why)
	}
	statusReq := "TA-21"
	if onlyDoom {
		statusReq = "TA-26"
	}
	v.add(statusReq, "after the final-answer turn the session ended %q; the bound that fired first allows only %s", status, strings.Join(whys, " or "))
}

// earlyLimit files a limit path taken when no bound was due under the
// requirement of the bound the kernel says fired: the bound of its
// limit_reached event, or else the bound its status names.
func (s *Scenario) earlyLimit(v verdicts, f calllog.Entry, when string) {
	bound := ""
	for _, ev := range s.World.Events() {
		if ev.SessionID == s.SessionID && ev.Kind == wire.EventLimitReached && ev.Payload["soft"] != true {
			if b, ok := ev.Payload["bound"].(string); ok {
				bound = b
				break
			}
		}
	}
	req := "TA-19"
	switch {
	case bound == "max_turns" || (bound == "" && s.Result.Status == wire.StatusErrorMaxTurns):
		req = "TA-02"
	case bound == "max_cost_usd" || (bound == "" && s.Result.Status == wire.StatusErrorMaxBudgetUSD):
		req = "TA-03"
	case bound == "max_wall_clock_s" || (bound == "" && s.Result.Status == wire.StatusErrorMaxWallClock):
		req = "TA-04"
	case bound == "doom_loop":
		req = "TA-12"
	}
	what := "the limit path"
	if bound != "" {
		what += " (its limit_reached event names " + bound + ")"
	}
	v.add(req, "the kernel took %s %s: model request %d is a final-answer request; the session ended %q", what, when, s.nthOf(f), s.Result.Status)
}

func (s *Scenario) doomAcceptable(why string) acceptable {
	_, want := s.doomStatusOK("")
	if d, ok := s.env.Info.Readings[readingDoomStatus]; ok && d != "" {
		want = d
	}
	return acceptable{why: fmt.Sprintf("the doom-loop status, %s (%s)", want, why), doom: true, ok: func(x string) bool {
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
	// The kernel's session clock has certainly started by the arrival of
	// its first message of the session (a notification such as
	// session_meta may come before its first request): measured from
	// there, not from the first request, a start that took the kernel
	// long on a loaded machine counts as the time it did take.
	first := s.firstArrival(reqs[0].Start)
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

// firstArrival is the arrival of the session's first message from the
// kernel, request or notification (before, when none came before).
func (s *Scenario) firstArrival(before time.Time) time.Time {
	for _, e := range s.World.Log.Select(func(e *calllog.Entry) bool {
		return (e.Kind == calllog.Request || e.Kind == calllog.Notification) && e.SessionID == s.SessionID
	}) {
		if e.Start.Before(before) {
			before = e.Start
		}
	}
	return before
}

// ranCalls reports whether the kernel invoked at least as many tools in
// the turn of model request e as its reply holds read and resource calls
// (interactive calls go to the frontend, not tool/invoke).
func (s *Scenario) ranCalls(e calllog.Entry, calls []wire.StreamEvent) bool {
	p, ok := e.Value.(wire.ModelStreamParams)
	if !ok {
		return true
	}
	want := 0
	for _, c := range calls {
		if k := s.toolKind(c.Name); k == wire.KindDataSource || k == wire.KindResource {
			want++
		}
	}
	got := 0
	for _, r := range s.requests() {
		if ip, ok := r.Value.(wire.ToolInvokeParams); ok && ip.CallContext.TurnID == p.CallContext.TurnID {
			got++
		}
	}
	return got >= want
}
