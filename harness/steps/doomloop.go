package steps

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/internal/plain"
	"github.com/agentconform/conform/spec/wire"
)

// Doom-loop area: the kernel-owned hash detector (TA-12, TA-26) and its
// model-judged second tier (TA-13); terminal tools (TA-11, TA-27).

// Readings of the doom-loop detector (PROTOCOL.md §15).
const (
	readingDoomThreshold = "doom_loop.default_threshold"
	readingDoomStatus    = "doom_loop.status"
)

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the doom-loop threshold is (\d+)$`), s.doomThreshold)
		sc.Step(stepRE(`^the model answers every request with the same call to "([^"]+)", its keys in a different order each time$`), s.sameCallShuffled)
		sc.Step(stepRE(`^the model calls "([^"]+)" in successive requests with (\w+) (.+)$`), s.callSequence)
		sc.Step(stepRE(`^the model answers request (\d+) with these calls:$`), s.answerCallTable)
		sc.Step(stepRE(`^the model makes these calls, one per request:$`), s.oneCallPerRequest)
		sc.Step(stepRE(`^the doom-loop model check looks at windows of (\d+) calls?$`), s.modelCheckWindow)
		sc.Step(stepRE(`^the model's loop check answers that the session is looping with confidence (\S+)$`), func(c string) error {
			return s.loopCheckAnswer(true, c)
		})
		sc.Step(stepRE(`^the model's loop check answers that the session is not looping$`), func() error {
			return s.loopCheckAnswer(false, "0.95")
		})
		sc.Step(stepRE(`^the tool "([^"]+)" is marked terminates_turn$`), s.terminatesTurn)

		sc.Step(stepRE(`^the doom-loop detector fired after between 3 and 5 identical calls, as the kernel declares$`), s.proves(s.defaultThresholdObserved, "TA-12"))
		sc.Step(stepRE(`^the session ends with the kernel's doom-loop status$`), s.proves(s.doomStatus, "TA-13", "TA-26"))
		sc.Step(stepRE(`^the kernel asked the model whether the session is looping$`), s.proves(s.loopCheckAsked, "TA-13"))
		sc.Step(stepRE(`^the session took the limit path before its turn bound$`), s.proves(s.limitBeforeTurnBound, "TA-13"))
		sc.Step(stepRE(`^the session reached its turn bound$`), s.proves(s.reachedTurnBound, "TA-13"))
		sc.Step(stepRE(`^the post-tool-call hook saw the call to "([^"]+)"$`), s.proves(s.postToolCallSaw, "TA-11", "TA-27"))
	})
}

func (s *Scenario) doomThreshold(n int) error {
	if s.Cfg.DoomLoop == nil {
		s.Cfg.DoomLoop = &wire.DoomLoop{}
	}
	s.Cfg.DoomLoop.Threshold = &n
	return nil
}

func (s *Scenario) modelCheckWindow(n int) error {
	if s.Cfg.DoomLoop == nil {
		s.Cfg.DoomLoop = &wire.DoomLoop{}
	}
	s.Cfg.DoomLoop.ModelCheckWindow = n
	return nil
}

// shuffledInputs are one input with its keys, nested ones too, in different
// orders; they are equal as JSON values.
var shuffledInputs = []string{
	`{"query":"same","limit":10,"filter":{"lang":"en","safe":true}}`,
	`{"filter":{"safe":true,"lang":"en"},"query":"same","limit":10}`,
	`{"limit":10,"filter":{"lang":"en","safe":true},"query":"same"}`,
	`{"query":"same","filter":{"safe":true,"lang":"en"},"limit":10}`,
	`{"filter":{"lang":"en","safe":true},"limit":10,"query":"same"}`,
	`{"limit":10,"query":"same","filter":{"safe":true,"lang":"en"}}`,
}

func (s *Scenario) sameCallShuffled(tool string) error {
	s.World.Model.Every(fakes.Reply{CallsFn: func(n int) []fakes.Call {
		return []fakes.Call{{Name: tool, Input: json.RawMessage(shuffledInputs[(n-1)%len(shuffledInputs)])}}
	}})
	return nil
}

// callSequence reads `with query "a", "a", "b" and "a"`: request i calls the
// tool once with the i-th value.
func (s *Scenario) callSequence(tool, field, values string) error {
	vs := quotedList(values)
	if len(vs) == 0 {
		return fmt.Errorf("no quoted values in %q", values)
	}
	for i, v := range vs {
		in, err := json.Marshal(map[string]string{field: v})
		if err != nil {
			return err
		}
		s.World.Model.On(i+1, fakes.Reply{Calls: []fakes.Call{{Name: tool, Input: in}}})
	}
	return nil
}

// answerCallTable reads a table with columns "tool" and "input" (raw JSON,
// key order kept as written).
func (s *Scenario) answerCallTable(nth string, t *godog.Table) error {
	n, err := ordinal(nth)
	if err != nil {
		return err
	}
	var calls []fakes.Call
	for i, r := range t.Rows {
		if len(r.Cells) < 2 {
			return errors.New("the call table needs the columns tool and input")
		}
		tool, in := strings.TrimSpace(r.Cells[0].Value), strings.TrimSpace(r.Cells[1].Value)
		if i == 0 && tool == "tool" {
			continue
		}
		if !json.Valid([]byte(in)) {
			return fmt.Errorf("the input of %s is not JSON: %s", tool, in)
		}
		calls = append(calls, fakes.Call{Name: tool, Input: json.RawMessage(in)})
	}
	if len(calls) == 0 {
		return errors.New("the call table has no calls")
	}
	s.World.Model.On(n, fakes.Reply{Calls: calls})
	return nil
}

// loopCheckAnswer scripts the answer to the doom loop's loop_check requests
// in the form PROTOCOL.md §7.3 fixes.
func (s *Scenario) loopCheckAnswer(looping bool, confidence string) error {
	c, err := strconv.ParseFloat(confidence, 64)
	if err != nil {
		return err
	}
	text, _ := json.Marshal(map[string]any{"looping": looping, "confidence": c})
	s.World.Model.OnPurpose(wire.PurposeLoopCheck, fakes.Reply{Text: string(text)})
	return nil
}

func (s *Scenario) terminatesTurn(tool string) error {
	for i := range s.Cfg.Tools {
		if s.Cfg.Tools[i].Name == tool {
			s.Cfg.Tools[i].TerminatesTurn = true
			return nil
		}
	}
	return fmt.Errorf("no tool %q is declared", tool)
}

// TA-12: with the default threshold, the limit path begins after k
// identical calls, one per turn, with 3 <= k <= 5, and k is the threshold
// the kernel declares, if it declares one. How the session went on after
// the detector fired is TA-26's.
func (s *Scenario) defaultThresholdObserved() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	lp := s.limitPath()
	k := lp.ordinary()
	max := 0
	if b := s.Cfg.Bounds.MaxTurns; b != nil {
		max = *b
	}
	switch {
	case k >= max && max > 0:
		return fmt.Errorf("the same call came %d times and the kernel ran on until max_turns %d; its detector should fire after 3 to 5 identical calls", k, max)
	case lp.final < 0 && (s.Result.Status == wire.StatusRunning || s.Result.Status == wire.StatusCancelled || s.Result.Status == ""):
		return notReached("the session ended %q after %d turns, so whether the detector fired cannot be told", s.Result.Status, k)
	case k < 3 || k > 5:
		return fmt.Errorf("the kernel stopped the loop after %d identical calls; the default threshold must lie between 3 and 5", k)
	}
	if d, ok := s.env.Info.Readings[readingDoomThreshold]; ok && d != strconv.Itoa(k) {
		return fmt.Errorf("the kernel declares a default doom-loop threshold of %s, but stopped the loop after %d identical calls", d, k)
	}
	return nil
}

// doomStatuses are the statuses a doom-loop ending may report: the
// spec has no subtype for it, so any of the bound subtypes, declared by the
// kernel; completed is allowed but recorded as suspicious. failed is never
// allowed (TA-08, TA-26: a fired bound is not an error), nor running, nor
// cancelled (nobody cancelled the session).
var doomStatuses = []string{wire.StatusErrorMaxTurns, wire.StatusErrorMaxBudgetUSD, wire.StatusErrorMaxWallClock, wire.StatusCompleted}

// doomStatusOK says whether a status is acceptable after a doom-loop
// ending, and if not, what was expected.
func (s *Scenario) doomStatusOK(status string) (bool, string) {
	allowed := "one of " + strings.Join(doomStatuses, ", ") + " (A-06)"
	d, declared := s.env.Info.Readings[readingDoomStatus]
	if declared && d != "" {
		if !slices.Contains(doomStatuses, d) {
			return false, fmt.Sprintf("a doom-loop status the spec allows, %s; the kernel declares %s = %q, which no reading allows (a fired bound never ends %q)", allowed, readingDoomStatus, d, d)
		}
		return status == d, fmt.Sprintf("the status the kernel declares for a doom-loop ending (%s = %q)", readingDoomStatus, d)
	}
	return slices.Contains(doomStatuses, status), allowed
}

// noteDoomStatus records a doom-loop ending reported as completed (A-06:
// suspicious, because it looks like a normal finish).
func (s *Scenario) noteDoomStatus(status string) {
	if status == wire.StatusCompleted {
		s.observe("A-06", "the doom-loop ending was reported with status %q, which looks like a normal finish (%s = %q)", status, readingDoomStatus, s.env.Info.Readings[readingDoomStatus])
	}
}

// TA-26, TA-13: the doom-loop ending is a limit, not an error.
func (s *Scenario) doomStatus() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	ok, want := s.doomStatusOK(s.Result.Status)
	if !ok {
		msg := fmt.Sprintf("after the doom loop the session ended %q; expected %s", s.Result.Status, want)
		if s.Result.Error != "" {
			msg += " (error: " + s.Result.Error + ")"
		}
		return errors.New(msg)
	}
	s.noteDoomStatus(s.Result.Status)
	return nil
}

// TA-13: a loop_check request reached the model, offering no tools
// (§7.3), as a first attempt unless it retries a loop_check that failed
// (§7.3: attempt counts from 1; the scenarios never fail one).
func (s *Scenario) loopCheckAsked() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	asked, failed := 0, false
	for _, e := range s.modelEntries() {
		r, _ := e.Value.(wire.ModelStreamParams)
		if r.Purpose != wire.PurposeLoopCheck {
			continue
		}
		asked++
		if len(r.Tools) > 0 {
			return fmt.Errorf("loop check %d offered the model %d tools; a loop_check request sends none (PROTOCOL.md §7.3)", asked, len(r.Tools))
		}
		if r.Attempt != 1 && !failed {
			return fmt.Errorf("loop check %d was sent with attempt %d, although no loop check before it failed; a new request's attempt is 1 (PROTOCOL.md §7.3)", asked, r.Attempt)
		}
		failed = replyFailed(e)
	}
	if asked == 0 {
		return fmt.Errorf("the kernel sent %d model requests and none of purpose %q", len(s.modelRequests()), wire.PurposeLoopCheck)
	}
	return nil
}

// TA-13: the limit path began before the turn bound was used up.
func (s *Scenario) limitBeforeTurnBound() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	lp := s.limitPath()
	if lp.final < 0 {
		return fmt.Errorf("the kernel never took the limit path: %s, none of them a final-answer request (status %q)", plain.Count(len(lp.turns), "turn request"), s.Result.Status)
	}
	if b := s.Cfg.Bounds.MaxTurns; b != nil && lp.ordinary() >= *b {
		return fmt.Errorf("the limit path began only after %d turns, when max_turns %d fired", lp.ordinary(), *b)
	}
	return nil
}

// TA-13 control: nothing stopped the session before max_turns.
func (s *Scenario) reachedTurnBound() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	b := s.Cfg.Bounds.MaxTurns
	if b == nil {
		return scenarioDefect("the scenario sets no turn bound")
	}
	lp := s.limitPath()
	if lp.ordinary() != *b {
		return fmt.Errorf("expected the session to run its %s before the limit path; the kernel ran %s (status %q)", plain.Count(*b, "turn"), plain.Count(lp.ordinary(), "ordinary turn"), s.Result.Status)
	}
	if s.Result.Status != wire.StatusErrorMaxTurns {
		return fmt.Errorf("expected status %q, the session ended %q", wire.StatusErrorMaxTurns, s.Result.Status)
	}
	return nil
}

// TA-27: the terminal call's own post-tool-call dispatch happened.
func (s *Scenario) postToolCallSaw(tool string) error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if why := s.hookPointUnseen(wire.PointPostToolCall); why != "" {
		return glueNotReached(why)
	}
	for _, e := range s.dispatchesAt(wire.PointPostToolCall) {
		if p := e.Value.(wire.HookDispatchParams); p.Payload.Call != nil && p.Payload.Call.Name == tool {
			return nil
		}
	}
	return fmt.Errorf("no post-tool-call dispatch carried the call to %q", tool)
}

// oneCallPerRequest reads a table with columns "tool" and "input" (raw
// JSON): request i calls the i-th row's tool once.
func (s *Scenario) oneCallPerRequest(t *godog.Table) error {
	n := 0
	for i, r := range t.Rows {
		if len(r.Cells) < 2 {
			return errors.New("the call table needs the columns tool and input")
		}
		tool, in := strings.TrimSpace(r.Cells[0].Value), strings.TrimSpace(r.Cells[1].Value)
		if i == 0 && tool == "tool" {
			continue
		}
		if !json.Valid([]byte(in)) {
			return fmt.Errorf("the input of %s is not JSON: %s", tool, in)
		}
		n++
		s.World.Model.On(n, fakes.Reply{Calls: []fakes.Call{{Name: tool, Input: json.RawMessage(in)}}})
	}
	if n == 0 {
		return errors.New("the call table has no calls")
	}
	return nil
}
