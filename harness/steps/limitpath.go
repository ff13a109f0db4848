package steps

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// The limit-reached path (PROTOCOL.md §13) read from the recorded model
// requests, and one check per clause, each naming only the requirement whose
// clause it is: how many ordinary turns ran before the path began is the
// firing bound's (TA-02, TA-03, TA-04, TA-12, TA-26); that exactly one
// final-answer turn followed is TA-08's and TA-21's; the shape of that
// request is TA-20's; that nothing ran after it is TA-21's. So a
// kernel whose bound fires a turn late fails TA-02 alone, and one that
// withholds no tools fails TA-20 alone.

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the model answers every request with the same call to "([^"]+)"$`), s.sameCallEveryTime)

		sc.Step(stepRE(`^the kernel ran (\d+) ordinary turns?$`), s.proves(s.ordinaryTurns, "TA-02", "TA-03", "TA-04", "TA-05", "TA-12", "TA-19", "TA-26"))
		sc.Step(stepRE(`^exactly one final-answer turn followed$`), s.proves(s.oneFinalTurn, "TA-08", "TA-19", "TA-21", "TA-26"))
		sc.Step(stepRE(`^the status names the bound: "([^"]+)"$`), s.proves(s.statusNamesBound, "TA-03", "TA-04", "TA-05", "TA-19", "TA-21"))
		sc.Step(stepRE(`^the session-end payload and the last session_meta row name the same bound$`), s.proves(s.boundStatusEverywhere, "TA-21"))
		sc.Step(stepRE(`^the final-answer request offered no tools$`), s.proves(s.finalOfferedNoTools, "TA-20"))
		sc.Step(stepRE(`^the final-answer request carried an instruction the harness did not send$`), s.proves(s.finalCarriedInstruction, "TA-20"))
		sc.Step(stepRE(`^the final-answer request still holds the results of every earlier tool call$`), s.proves(s.finalHoldsResults, "TA-19", "TA-20"))
		sc.Step(stepRE(`^no tool ran after the final-answer request$`), s.proves(s.noToolAfterFinal, "TA-21"))
		sc.Step(stepRE(`^the calls of the last ordinary turn were all carried out before the final-answer request$`), s.proves(s.lastTurnCarriedOut, "TA-19"))
		sc.Step(stepRE(`^the final-answer request came at least (\S+) seconds after the session started$`), s.proves(s.finalNotBefore, "TA-04"))
	})
}

// sameCallEveryTime scripts the byte-identical call for every request: the
// doom loop's limit path without relying on canonical JSON (that is TA-12's
// own scenario, with reordered keys).
func (s *Scenario) sameCallEveryTime(tool string) error {
	in := json.RawMessage(shuffledInputs[0])
	s.World.Model.Every(fakes.Reply{Calls: []fakes.Call{{Name: tool, Input: in}}})
	return nil
}

// limitPath is how the loop ended: the turn requests (retries and loop
// checks left out) and which of them is the final-answer request.
type limitPath struct {
	turns []calllog.Entry
	final int // index in turns; -1: the kernel took no final-answer turn
}

// ordinary is the number of ordinary turns: the turn requests before the
// final-answer request (A-07: the final-answer turn is not counted).
func (lp limitPath) ordinary() int {
	if lp.final >= 0 {
		return lp.final
	}
	return len(lp.turns)
}

func (lp limitPath) finalEntry() (calllog.Entry, bool) {
	if lp.final < 0 {
		return calllog.Entry{}, false
	}
	return lp.turns[lp.final], true
}

// turnEntries are the root session's model requests of turns: loop checks
// (TA-13) and retries of one call (attempt > 1) are left out.
func (s *Scenario) turnEntries() []calllog.Entry {
	var out []calllog.Entry
	for _, e := range s.modelEntries() {
		p, _ := e.Value.(wire.ModelStreamParams)
		if p.Purpose == wire.PurposeLoopCheck || p.Attempt > 1 {
			continue
		}
		out = append(out, e)
	}
	return out
}

// limitPath finds the final-answer request by finalAnswerAt, the one
// classification of turn requests every check shares.
func (s *Scenario) limitPath() limitPath {
	ts := s.turnEntries()
	return limitPath{turns: ts, final: s.finalAnswerAt(ts)}
}

// finalAnswerAt is the index in turns of the final-answer request, or -1:
// the first request the kernel labels purpose final_answer (§13), or, for
// a kernel that does not label it, the last request when the turn before
// it carried out its calls, this one carried out none of its own, and it
// shows itself a final-answer request (unlabelledFinal). Every check reads
// requests through this one classification, so two checks of one run never
// disagree about what a request was: the request TA-02 leaves out of the
// ordinary turns is the one TA-08 judges as the final-answer turn.
func (s *Scenario) finalAnswerAt(turns []calllog.Entry) int {
	for i, e := range turns {
		if p, _ := e.Value.(wire.ModelStreamParams); p.Purpose == wire.PurposeFinalAnswer {
			return i
		}
	}
	n := len(turns)
	if n < 2 {
		return -1
	}
	last, prev := turns[n-1], turns[n-2]
	in := last.SessionID
	if s.anyActedOn(in, replyCalls(prev)) && !s.anyActedOn(in, replyCalls(last)) && s.unlabelledFinal(prev, last) {
		return n - 1
	}
	return -1
}

// unlabelledFinal says whether a request the kernel does not label shows
// itself a final-answer request: it withholds every tool, or it carries a
// new instruction of the kernel's own (TA-20's two marks; either is enough
// to tell the kind of request, and TA-20 judges whether both are there). A
// request that offers the tools and says nothing new is an ordinary
// request, whatever the kernel does with its reply: a loop whose turn cap
// lets the model answer once more with the tools offered and then drops
// the calls (Genkit's WithMaxTurns) ran one ordinary turn too many (TA-02)
// and made no final-answer request (TA-08). A reply of plain text to an
// ordinary request is a normal finish, not a final-answer turn.
func (s *Scenario) unlabelledFinal(prev, e calllog.Entry) bool {
	p, _ := e.Value.(wire.ModelStreamParams)
	if len(p.Tools) == 0 {
		return true
	}
	if e.SessionID == s.SessionID {
		return s.requestCarriedInstruction(strconv.Itoa(s.nthOf(e))) == nil
	}
	// A child's request: its new texts against its previous turn request.
	pp, _ := prev.Value.(wire.ModelStreamParams)
	before := map[string]bool{}
	for _, t := range s.kernelTexts(pp) {
		before[t] = true
	}
	for _, t := range s.kernelTexts(p) {
		if !before[t] && isInstruction(t) {
			return true
		}
	}
	return false
}

// anyActedOn reports whether the kernel did anything in session with one
// of the calls after the model emitted it: a tool hook, a permission
// request, a preview, an invoke or an interactive request naming its call
// id.
func (s *Scenario) anyActedOn(session string, calls []wire.StreamEvent) bool {
	ids := map[string]bool{}
	for _, c := range calls {
		ids[c.ID] = true
	}
	if len(ids) == 0 {
		return false
	}
	for _, e := range s.saRequests(session, "") {
		switch v := e.Value.(type) {
		case wire.ToolInvokeParams:
			if ids[v.CallID] {
				return true
			}
		case wire.InteractiveParams:
			if ids[v.CallID] {
				return true
			}
		case wire.ToolPreviewParams:
			if ids[v.CallID] {
				return true
			}
		case wire.PermissionParams:
			for _, it := range v.Items {
				if ids[it.ToolCallID] {
					return true
				}
			}
		case wire.HookDispatchParams:
			if v.Payload.Call != nil && ids[v.Payload.Call.ID] {
				return true
			}
		}
	}
	return false
}

// finalOrNotReached is the final-answer request, or why a check about it
// cannot be evaluated.
func (s *Scenario) finalOrNotReached() (calllog.Entry, int, error) {
	if err := s.mustHaveRun(); err != nil {
		return calllog.Entry{}, 0, err
	}
	lp := s.limitPath()
	e, ok := lp.finalEntry()
	if !ok {
		return e, 0, notReached("the kernel made no final-answer request (%s; status %q)", plain.Count(len(lp.turns), "turn request"), s.Result.Status)
	}
	return e, s.nthOf(e), nil
}

// ordinaryTurns: the limit path began after exactly n ordinary turns.
func (s *Scenario) ordinaryTurns(n int) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	lp := s.limitPath()
	got := lp.ordinary()
	if got == n {
		return nil
	}
	if why := s.wallClockSpentEarly(lp, got, n); why != "" {
		return notReached("%s", why)
	}
	how := "then took the limit path"
	if lp.final < 0 {
		how = fmt.Sprintf("and no final-answer turn; the session ended %q", s.Result.Status)
	}
	return fmt.Errorf("expected %s before the limit path, the kernel ran %d %s", plain.Count(n, "ordinary turn"), got, how)
}

// wallClockSpentEarly says why a limit path taken after turn got, before
// the scenario's n, proves nothing: the wall-clock bound may have run out
// at step 17 of turn got on the recorded log (a scenario's "turns that
// take no time" took longer than the bound on a loaded machine), so firing
// there may have been right and the scenario's premise did not hold. ""
// when the bound had certainly not run out there.
func (s *Scenario) wallClockSpentEarly(lp limitPath, got, n int) string {
	b := s.Cfg.Bounds.MaxWallClockS
	if b == nil || got < 1 || got >= n || got > len(lp.turns) {
		return ""
	}
	// Firing there is wrong only if the bound had certainly not run out:
	// the most the kernel's clock can have read at that step 17 (from
	// session/run to the kernel's next request) is still short of it. A
	// kernel slowed after the turn's last answer (a loaded machine) may
	// have read more than the scenario planned for.
	_, hi := s.elapsedAtStep17(lp.turns[got-1])
	w := time.Duration(*b * float64(time.Second))
	if hi < w-wallTolerance {
		return ""
	}
	return fmt.Sprintf("the wall-clock bound of %v may have run out at step 17 of turn %d (up to %v after session/run, on the recorded log), so the limit path after it may have been due; the scenario needs turns before turn %d to take less time than this machine gave them (raise --timeout-multiplier)",
		w, got, hi.Round(time.Millisecond), n)
}

// oneFinalTurn: after the ordinary turns exactly one more model request,
// the final-answer turn, and the session did not end failed (TA-08: a fired
// bound is not an unrecoverable error).
func (s *Scenario) oneFinalTurn() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	lp := s.limitPath()
	if lp.final < 0 && !s.tookLimitPath() {
		return notReached("the kernel never took the limit path: no final-answer request, no limit_reached or doom_loop event, and the session ended %q after %s", s.Result.Status, plain.Count(len(lp.turns), "turn"))
	}
	if lp.final < 0 {
		msg := fmt.Sprintf("after its last ordinary turn (model request %d) the kernel made no final-answer request; the session ended %q", len(lp.turns), s.Result.Status)
		if n := len(lp.turns); n > 1 {
			last := lp.turns[n-1]
			msg = fmt.Sprintf("after its last ordinary turn (model request %d) the kernel made no final-answer request; the session ended %q", s.nthOf(last), s.Result.Status)
			if p, _ := last.Value.(wire.ModelStreamParams); len(p.Tools) > 0 {
				msg += " (that request offered the tools, carried no instruction of the kernel's own and is not labelled final_answer: an ordinary request)"
			}
		}
		if s.Result.Error != "" {
			msg += " (error: " + s.Result.Error + ")"
		}
		return errors.New(msg)
	}
	if extra := len(lp.turns) - lp.final - 1; extra > 0 {
		return fmt.Errorf("the final-answer request was model request %d, and the kernel asked the model %d more times after it", s.nthOf(lp.turns[lp.final]), extra)
	}
	if s.Result.Status == wire.StatusFailed {
		return fmt.Errorf("the session ended %q after the final-answer turn; a fired bound never ends the session as failed (error: %s)", s.Result.Status, s.Result.Error)
	}
	return nil
}

// tookLimitPath says whether the kernel shows in any way that a bound or
// the doom loop fired: a final-answer request, a limit_reached (not soft)
// or doom_loop event, or an ending status of a bound or of a failure. A
// kernel that shows none of these and finished normally never reached the
// limit path, and checks of what follows it are not reached.
func (s *Scenario) tookLimitPath() bool {
	if s.limitPath().final >= 0 {
		return true
	}
	for _, ev := range s.World.Events() {
		if ev.SessionID != s.SessionID {
			continue
		}
		if ev.Kind == wire.EventDoomLoop || (ev.Kind == wire.EventLimitReached && ev.Payload["soft"] != true) {
			return true
		}
	}
	switch s.Result.Status {
	case wire.StatusErrorMaxTurns, wire.StatusErrorMaxBudgetUSD, wire.StatusErrorMaxWallClock, wire.StatusFailed:
		return true
	}
	return false
}

// statusNamesBound: after the limit path the session ends with the status
// naming the bound (TA-21). A kernel that never took the limit path fails
// the bound's own checks instead; here it is not reached.
func (s *Scenario) statusNamesBound(status string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if !s.tookLimitPath() {
		return notReached("the kernel never took the limit path (the session ended %q)", s.Result.Status)
	}
	return s.sessionEndsWith(status)
}

// boundStatusEverywhere: the status naming the bound is the same in the
// session-end payload and the last session_meta row as in the result
// (TA-21). Not reached for a kernel that never took the limit path: then
// the rows agreeing on some other status proves nothing about TA-21.
func (s *Scenario) boundStatusEverywhere() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if !s.tookLimitPath() {
		return notReached("the kernel never took the limit path (the session ended %q)", s.Result.Status)
	}
	return errors.Join(s.sessionEndPayloadStatus(), s.lastMetaStatus())
}

func (s *Scenario) finalOfferedNoTools() error {
	_, n, err := s.finalOrNotReached()
	if err != nil {
		return err
	}
	return s.requestOfferedNoTools(strconv.Itoa(n))
}

func (s *Scenario) finalCarriedInstruction() error {
	_, n, err := s.finalOrNotReached()
	if err != nil {
		return err
	}
	return s.requestCarriedInstruction(strconv.Itoa(n))
}

func (s *Scenario) finalHoldsResults() error {
	_, n, err := s.finalOrNotReached()
	if err != nil {
		return err
	}
	return s.requestHoldsEarlierResults(strconv.Itoa(n))
}

func (s *Scenario) noToolAfterFinal() error {
	_, n, err := s.finalOrNotReached()
	if err != nil {
		return err
	}
	return s.noInvokeAfter(strconv.Itoa(n))
}

// lastTurnCarriedOut: the calls of the turn in which the bound fired ran,
// and their results were back before the final-answer request (TA-19).
func (s *Scenario) lastTurnCarriedOut() error {
	_, n, err := s.finalOrNotReached()
	if err != nil {
		return err
	}
	if n < 2 {
		return notReached("the final-answer request was the session's first model request")
	}
	return s.callsCarriedOut(strconv.Itoa(n-1), strconv.Itoa(n))
}

// finalNotBefore: the wall-clock bound did not fire early (TA-04).
func (s *Scenario) finalNotBefore(secs string) error {
	_, n, err := s.finalOrNotReached()
	if err != nil {
		return err
	}
	return s.requestNotBefore(strconv.Itoa(n), secs)
}

// instructionWords is how many words the kernel's final-answer instruction
// must have at least. Every reading of TA-20 shares this much: the kernel
// tells the model in words of its own that a limit was reached and asks for
// a final answer, which no sentence does in fewer than three words ("Limit
// reached: answer."); a lone "." or a marker token says neither.
const instructionWords = 3

// isInstruction says whether a kernel text can be the instruction: at least
// instructionWords words of two or more letters.
func isInstruction(text string) bool {
	n := 0
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		letters := 0
		for _, r := range w {
			if unicode.IsLetter(r) {
				letters++
			}
		}
		if letters >= 2 {
			n++
		}
	}
	return n >= instructionWords
}
