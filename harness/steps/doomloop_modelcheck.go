package steps

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/harness/calllog"
	"github.com/agentconform/conform/spec/wire"
)

// The doom loop's second tier (TA-13) as PROTOCOL.md fixes it for a kernel
// that declares doomloop.model_check: model_check_window is "Calls after
// which the second-tier model check runs", so the first loop_check request
// comes once that many calls were made, before the next turn request, and
// the next one that many calls later (a check restarts the count); the
// request shows the model the window's calls (§7.3: worded as the kernel
// likes, but a model cannot judge calls it is not shown) and offers no
// tools; a confident yes is looping true with a confidence of at least 0.8.
// Which calls count is the kernel's reading doom_loop.model_check_counts.

// readingModelCheckCounts says what model_check_window counts (§15).
const readingModelCheckCounts = "doom_loop.model_check_counts"

// modelCheckCountings are the values of doom_loop.model_check_counts:
// the calls of the hash tier's sequence (data_source and resource calls,
// interactive ones invisible, A-01, A-03), every tool call, or turns.
var modelCheckCountings = []string{"relevant_calls", "calls", "turns"}

func init() {
	areaSteps = append(areaSteps, func(s *Scenario, sc stepper) {
		sc.Step(stepRE(`^the doom-loop detector looks back over (\d+) calls$`), s.doomWindowSize)
		sc.Step(stepRE(`^the model answers every request with calls to (.+), whose (\w+) changes each time$`), s.answerEveryCallsVarying)
		sc.Step(stepRE(`^the model's loop check answers, with text around the JSON object, that the session is looping with confidence (\S+)$`), s.loopCheckAnswerWrapped)
		sc.Step(stepRE(`^the model's loop check answers in (\d+) text pieces that the session is looping with confidence (\S+)$`), s.loopCheckAnswerPieces)

		sc.Step(stepRE(`^the kernel asked whether the session is looping each time the window of calls filled$`), s.proves(s.loopChecksWhereWindowFills, "TA-13"))
		sc.Step(stepRE(`^every loop check showed the model the calls of its window$`), s.proves(s.loopCheckShowedWindow, "TA-13"))
		sc.Step(stepRE(`^every loop check asked the model for the agreed answer form$`), s.proves(s.loopCheckAskedForm, "TA-13"))
	})
}

func (s *Scenario) doomWindowSize(n int) error {
	if s.Cfg.DoomLoop == nil {
		s.Cfg.DoomLoop = &wire.DoomLoop{}
	}
	s.Cfg.DoomLoop.WindowSize = &n
	return nil
}

// answerEveryCallsVarying reads `calls to "search" and "ask"`: every turn
// request is answered with one call per name, in that order, each with a
// value of its own ("value-<request>-<position>").
func (s *Scenario) answerEveryCallsVarying(tools, field string) error {
	names := quotedList(tools)
	if len(names) == 0 {
		return fmt.Errorf("no quoted tool names in %q", tools)
	}
	s.World.Model.Every(fakes.Reply{CallsFn: func(n int) []fakes.Call {
		calls := make([]fakes.Call, 0, len(names))
		for i, name := range names {
			in, _ := json.Marshal(map[string]string{field: fmt.Sprintf("value-%d-%d", n, i+1)})
			calls = append(calls, fakes.Call{Name: name, Input: in})
		}
		return calls
	}})
	return nil
}

// loopCheckAnswerWrapped puts the answer object inside prose (§7.3:
// "possibly with text around it").
func (s *Scenario) loopCheckAnswerWrapped(confidence string) error {
	text, err := loopAnswerJSON(confidence)
	if err != nil {
		return err
	}
	s.World.Model.OnPurpose(wire.PurposeLoopCheck, fakes.Reply{Text: "Looking at these calls: " + text + " That is my verdict."})
	return nil
}

// loopCheckAnswerPieces streams the answer as n text deltas, as other
// providers do; the kernel joins them into one text (§7.3, folding).
func (s *Scenario) loopCheckAnswerPieces(n int, confidence string) error {
	text, err := loopAnswerJSON(confidence)
	if err != nil {
		return err
	}
	if n < 1 || n > len(text) {
		return fmt.Errorf("cannot cut %q into %d pieces", text, n)
	}
	var ev []wire.StreamEvent
	size := len(text) / n
	for i := range n {
		end := (i + 1) * size
		if i == n-1 {
			end = len(text)
		}
		ev = append(ev, wire.StreamEvent{Type: wire.EventTextDelta, Text: text[i*size : end]})
	}
	ev = append(ev,
		wire.StreamEvent{Type: wire.EventUsage, Usage: &wire.Usage{InputTokens: 1000, OutputTokens: 100}},
		wire.StreamEvent{Type: wire.EventStop, StopReason: "end_turn"})
	s.World.Model.OnPurpose(wire.PurposeLoopCheck, fakes.Reply{Events: ev})
	return nil
}

func loopAnswerJSON(confidence string) (string, error) {
	c, err := strconv.ParseFloat(confidence, 64)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(map[string]any{"looping": true, "confidence": c})
	return string(b), err
}

// turnCalls are the calls of one ordinary turn, as the model emitted them.
type turnCalls []wire.StreamEvent

// ordinaryTurnCalls are the calls of each ordinary turn, in order.
func (s *Scenario) ordinaryTurnCalls(lp limitPath) []turnCalls {
	out := make([]turnCalls, 0, lp.ordinary())
	for _, e := range lp.turns[:lp.ordinary()] {
		out = append(out, replyCalls(e))
	}
	return out
}

// relevantCall: a data_source or resource call, one of the hash tier's
// sequence; interactive calls are invisible to it.
func (s *Scenario) relevantCall(name string) bool {
	for _, t := range s.Cfg.Tools {
		if t.Name == name {
			return t.Kind == wire.KindDataSource || t.Kind == wire.KindResource
		}
	}
	return false
}

// units is how much a turn adds to the model check's count.
func (s *Scenario) units(counting string, t turnCalls) int {
	switch counting {
	case "turns":
		return 1
	case "calls":
		return len(t)
	}
	n := 0
	for _, c := range t {
		if s.relevantCall(c.Name) {
			n++
		}
	}
	return n
}

// dueAfter is where a kernel with this counting asks: the turns after
// which the count reached the window. A check restarts the count; carry
// keeps what the filling turn added past the window (both are readings of
// "after that many calls" when a turn overfills the window).
func (s *Scenario) dueAfter(counting string, carry bool, window int, turns []turnCalls) []int {
	var out []int
	n := 0
	for i, t := range turns {
		n += s.units(counting, t)
		if n >= window {
			out = append(out, i+1)
			if carry {
				n -= window
			} else {
				n = 0
			}
		}
	}
	return out
}

// loopCheckPositions are, for each loop check (retries of one left out),
// the number of turn requests before it: a check after turn i's calls and
// before turn i+1's request is at i.
func (s *Scenario) loopCheckPositions() ([]int, []calllog.Entry) {
	var at []int
	var entries []calllog.Entry
	turns := 0
	for _, e := range s.modelEntries() {
		p, _ := e.Value.(wire.ModelStreamParams)
		switch {
		case p.Purpose != wire.PurposeLoopCheck:
			if p.Attempt <= 1 {
				turns++
			}
		case p.Attempt <= 1:
			at = append(at, turns)
			entries = append(entries, e)
		}
	}
	return at, entries
}

// checkWindow is the scenario's model_check_window; a check about the
// second tier in a scenario that sets none is a defect of the scenario.
func (s *Scenario) checkWindow() (int, error) {
	if s.Cfg.DoomLoop == nil || s.Cfg.DoomLoop.ModelCheckWindow <= 0 {
		return 0, scenarioDefect("the scenario sets no model_check_window")
	}
	return s.Cfg.DoomLoop.ModelCheckWindow, nil
}

// countings are the readings of doom_loop.model_check_counts the kernel
// may hold: the one it declares, or any of them.
func (s *Scenario) countings() ([]string, error) {
	d, ok := s.env.Info.Readings[readingModelCheckCounts]
	if !ok {
		return modelCheckCountings, nil
	}
	if !slices.Contains(modelCheckCountings, d) {
		return nil, fmt.Errorf("the kernel declares %s = %q, which is none of %s", readingModelCheckCounts, d, strings.Join(modelCheckCountings, ", "))
	}
	return []string{d}, nil
}

// TA-13: the loop checks came where model_check_window puts them: after
// the call that filled the window, before the next turn request, and again
// each time the window filled anew. A check due after the last ordinary
// turn may be left out when the turn bound fires at that turn; one after
// the final-answer request is ignored.
func (s *Scenario) loopChecksWhereWindowFills() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	window, err := s.checkWindow()
	if err != nil {
		return err
	}
	countings, err := s.countings()
	if err != nil {
		return err
	}
	lp := s.limitPath()
	turns := s.ordinaryTurnCalls(lp)
	at, _ := s.loopCheckPositions()
	// A check during the final-answer turn asks about a session that is
	// ending anyway: neither required nor wrong.
	got := slices.DeleteFunc(at, func(p int) bool { return p > len(turns) })
	boundFired := s.Cfg.Bounds.MaxTurns != nil && len(turns) >= *s.Cfg.Bounds.MaxTurns
	var wants []string
	for _, counting := range countings {
		for _, carry := range []bool{false, true} {
			want := s.dueAfter(counting, carry, window, turns)
			if slices.Equal(got, want) || (boundFired && len(want) > 0 && want[len(want)-1] == len(turns) && slices.Equal(got, want[:len(want)-1])) {
				return nil
			}
			wants = append(wants, fmt.Sprintf("%v counting %s", want, counting))
		}
	}
	slices.Sort(wants)
	wants = slices.Compact(wants)
	return fmt.Errorf("with model_check_window %d the loop checks came after turns %v of %d ordinary turns; they belong after turns %s (%s)",
		window, got, len(turns), strings.Join(wants, " or "), s.countingNote())
}

func (s *Scenario) countingNote() string {
	if d, ok := s.env.Info.Readings[readingModelCheckCounts]; ok {
		return fmt.Sprintf("the kernel declares %s = %q", readingModelCheckCounts, d)
	}
	return readingModelCheckCounts + " undeclared: any of " + strings.Join(modelCheckCountings, ", ")
}

// windowCalls are the relevant calls a loop check after turn p must show:
// the window's, as the declared counting reads it; undeclared, the ones
// every counting's window holds (the relevant calls among the last window
// calls of any kind).
func (s *Scenario) windowCalls(counting string, window, p int, turns []turnCalls) []wire.StreamEvent {
	if p > len(turns) {
		p = len(turns)
	}
	var all []wire.StreamEvent
	from := 0
	if counting == "turns" {
		from = max(0, p-window)
	}
	for _, t := range turns[from:p] {
		all = append(all, t...)
	}
	var rel []wire.StreamEvent
	if counting == "relevant_calls" {
		for _, c := range all {
			if s.relevantCall(c.Name) {
				rel = append(rel, c)
			}
		}
		return rel[max(0, len(rel)-window):]
	}
	if counting != "turns" {
		all = all[max(0, len(all)-window):]
	}
	for _, c := range all {
		if s.relevantCall(c.Name) {
			rel = append(rel, c)
		}
	}
	return rel
}

// TA-13: every loop check showed the model each call of its window: every
// string in the call's input appears in the request's messages, in any
// wording (a list, the history's tool_use blocks).
func (s *Scenario) loopCheckShowedWindow() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	window, err := s.checkWindow()
	if err != nil {
		return err
	}
	counting := "calls" // undeclared: what every counting's window holds
	if cs, err := s.countings(); err != nil {
		return err
	} else if len(cs) == 1 {
		counting = cs[0]
	}
	turns := s.ordinaryTurnCalls(s.limitPath())
	at, entries := s.loopCheckPositions()
	if len(entries) == 0 {
		return notReached("the kernel sent no loop_check request")
	}
	for i, e := range entries {
		p, _ := e.Value.(wire.ModelStreamParams)
		msgs, _ := json.Marshal(p.Messages)
		for _, c := range s.windowCalls(counting, window, at[i], turns) {
			for _, v := range inputStrings(c.Input) {
				if !containsToken(string(msgs), v) {
					return fmt.Errorf("loop check %d (after turn %d) did not show the model the call %s %s of its window of %d calls: %q appears nowhere in its messages", i+1, at[i], c.Name, c.Input, window, v)
				}
			}
		}
	}
	return nil
}

// TA-13: every loop check names the keys of the answer it expects
// (§7.3: looping and confidence). The fake model answers from its script,
// but a real one can give the agreed form only if asked for it, and a
// model/stream request has no channel for that but its messages.
func (s *Scenario) loopCheckAskedForm() error {
	if err := s.mustHaveRun(); err != nil {
		return err
	}
	_, entries := s.loopCheckPositions()
	if len(entries) == 0 {
		return notReached("the kernel sent no loop_check request")
	}
	for i, e := range entries {
		p, _ := e.Value.(wire.ModelStreamParams)
		msgs, _ := json.Marshal(p.Messages)
		for _, key := range []string{"looping", "confidence"} {
			if !containsToken(string(msgs), key) {
				return fmt.Errorf("loop check %d never names %q: its messages do not ask the model for the answer form PROTOCOL.md §7.3 fixes ({\"looping\": …, \"confidence\": …})", i+1, key)
			}
		}
	}
	return nil
}
