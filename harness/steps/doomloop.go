package steps

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cucumber/godog"

	"github.com/agentconform/conform/fakes"
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
	areaSteps = append(areaSteps, func(s *Scenario, sc *godog.ScenarioContext) {
		sc.Step(stepRE(`^the doom-loop threshold is (\d+)$`), s.doomThreshold)
		sc.Step(stepRE(`^the model answers every request with the same call to "([^"]+)", its keys in a different order each time$`), s.sameCallShuffled)
		sc.Step(stepRE(`^the model calls "([^"]+)" in successive requests with (\w+) (.+)$`), s.callSequence)
		sc.Step(stepRE(`^the model answers request (\d+) with these calls:$`), s.answerCallTable)
		sc.Step(stepRE(`^the doom-loop model check looks at windows of (\d+) calls$`), s.modelCheckWindow)
		sc.Step(stepRE(`^the model's loop check answers that the session is looping with confidence (\S+)$`), func(c string) error {
			return s.loopCheckAnswer(true, c)
		})
		sc.Step(stepRE(`^the model's loop check answers that the session is not looping$`), func() error {
			return s.loopCheckAnswer(false, "0.95")
		})
		sc.Step(stepRE(`^the tool "([^"]+)" is marked terminates_turn$`), s.terminatesTurn)

		sc.Step(stepRE(`^the doom-loop detector fired after between 3 and 5 identical calls, as the kernel declares$`), s.proves(s.defaultThresholdObserved, "TA-12"))
		sc.Step(stepRE(`^the session ends with the kernel's doom-loop status$`), s.proves(s.doomStatus, "TA-12", "TA-13", "TA-26"))
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

// turnRequests are the root session's model requests other than the doom
// loop's own loop checks.
func (s *Scenario) turnRequests() []wire.ModelStreamParams {
	var out []wire.ModelStreamParams
	for _, r := range s.modelRequests() {
		if r.Purpose != wire.PurposeLoopCheck {
			out = append(out, r)
		}
	}
	return out
}

// firstToolless is the 1-based number of the first turn request that
// offered no tools (the final-answer shape), 0 if none.
func firstToolless(rs []wire.ModelStreamParams) int {
	for i, r := range rs {
		if len(r.Tools) == 0 {
			return i + 1
		}
	}
	return 0
}

// TA-12: with the default threshold, the limit path begins after k
// identical calls, one per turn, with 3 <= k <= 5, and k is the threshold
// the kernel declares, if it declares one.
func (s *Scenario) defaultThresholdObserved() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	rs := s.turnRequests()
	f := firstToolless(rs)
	if f == 0 {
		return fmt.Errorf("the same call came %d times and the kernel never took the limit path (no tool-less final-answer request); its detector should fire after 3 to 5 identical calls", len(rs))
	}
	k := f - 1
	if k < 3 || k > 5 {
		return fmt.Errorf("the kernel took the limit path after %d identical calls; the default threshold must lie between 3 and 5", k)
	}
	if d, ok := s.env.Info.Readings[readingDoomThreshold]; ok && d != strconv.Itoa(k) {
		return fmt.Errorf("the kernel declares a default doom-loop threshold of %s, but took the limit path after %d identical calls", d, k)
	}
	if f != len(rs) {
		return fmt.Errorf("the final-answer request was model request %d, but the kernel sent %d turn requests", f, len(rs))
	}
	return nil
}

// doomStatusOK says whether a status is acceptable after a doom-loop
// ending: the kernel's declared reading, or without one anything that is
// neither a normal finish, a failure nor still running.
func (s *Scenario) doomStatusOK(status string) (bool, string) {
	if d, ok := s.env.Info.Readings[readingDoomStatus]; ok && d != "" {
		return status == d, fmt.Sprintf("the status the kernel declares for a doom-loop ending (%s = %q)", readingDoomStatus, d)
	}
	switch status {
	case wire.StatusCompleted, wire.StatusFailed, wire.StatusRunning, wire.StatusCancelled, "":
		return false, "a status that says the loop was stopped: not completed, failed, cancelled or running"
	}
	return true, ""
}

// TA-12, TA-26: the doom-loop ending is a limit, not an error and not a
// normal finish.
func (s *Scenario) doomStatus() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	if ok, want := s.doomStatusOK(s.Result.Status); !ok {
		msg := fmt.Sprintf("after the doom loop the session ended %q; expected %s", s.Result.Status, want)
		if s.Result.Error != "" {
			msg += " (error: " + s.Result.Error + ")"
		}
		return errors.New(msg)
	}
	return nil
}

// TA-13: a loop_check request reached the model.
func (s *Scenario) loopCheckAsked() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	for _, r := range s.modelRequests() {
		if r.Purpose == wire.PurposeLoopCheck {
			return nil
		}
	}
	return fmt.Errorf("the kernel sent %d model requests and none of purpose %q", len(s.modelRequests()), wire.PurposeLoopCheck)
}

// TA-13: a final-answer request came before the turn bound was used up,
// and it was the last.
func (s *Scenario) limitBeforeTurnBound() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	rs := s.turnRequests()
	f := firstToolless(rs)
	if f == 0 {
		return fmt.Errorf("the kernel never took the limit path: %d turn requests, none without tools (status %q)", len(rs), s.Result.Status)
	}
	if b := s.Cfg.Bounds.MaxTurns; b != nil && f-1 >= *b {
		return fmt.Errorf("the limit path began only after %d turns, when max_turns %d fired", f-1, *b)
	}
	if f != len(rs) {
		return fmt.Errorf("the final-answer request was turn request %d, but the kernel sent %d", f, len(rs))
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
		return errors.New("the scenario sets no turn bound")
	}
	rs := s.turnRequests()
	f := firstToolless(rs)
	if f-1 != *b {
		return fmt.Errorf("expected the session to run its %d turns and take the limit path after them; the kernel sent %d turn requests, the first without tools being number %d (status %q)", *b, len(rs), f, s.Result.Status)
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
	for _, e := range s.dispatchesAt(wire.PointPostToolCall) {
		if p := e.Value.(wire.HookDispatchParams); p.Payload.Call != nil && p.Payload.Call.Name == tool {
			return nil
		}
	}
	return fmt.Errorf("no post-tool-call dispatch carried the call to %q", tool)
}
