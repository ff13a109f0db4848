package fakes

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/agentconform/conform/spec/wire"
)

// Call is a tool call the fake model emits.
type Call struct {
	Name  string
	Input json.RawMessage
}

// Reply scripts one model answer.
type Reply struct {
	Text       string
	Calls      []Call
	Usage      *wire.Usage
	StopReason string
	Error      *wire.ModelError
	// Hang holds the stream until the kernel gives up on it.
	Hang bool
	// After, when set, holds the reply until the channel it returns is
	// closed (something the scenario waits for first, such as the
	// kernel's answer to a cancel); a nil channel holds nothing.
	After func() <-chan struct{}
	// CallsFn, when set, builds the calls from the request number n, so that
	// "every turn" scripts can vary their arguments per turn.
	CallsFn func(n int) []Call
	// Switch, when set, switches to this skill (a skill_switch event of the
	// deterministic-first profile, sent before the calls).
	Switch string
	// Events, when set, is the whole stream, sent as it is: a reply shaped
	// as other providers send them (several text deltas, several usage
	// events, a tool_call without input), which the fields above never
	// make (PROTOCOL.md §7.3).
	Events []wire.StreamEvent
}

// Model is the fake model provider. Replies are chosen by the number of the
// request within its session (1-based), whatever the request's purpose, so a
// kernel that sends an extra request meets the same script.
type Model struct {
	mu        sync.Mutex
	byN       map[int]Reply
	every     *Reply
	count     map[string]int
	byPurpose map[string]Reply
	usage     *wire.Usage
	Default   Reply
	// Cap is the most requests a session gets scripted answers for; past
	// it the model only says it is done, so a kernel that never stops still
	// ends and is judged by the checks instead of the scenario timeout.
	Cap int
	// OnHang, when set, is told when a hanging reply starts, so a scenario
	// can act (cancel the session) while the model call is in flight.
	OnHang func(session string)
}

func newModel() *Model {
	return &Model{byN: map[int]Reply{}, count: map[string]int{}, byPurpose: map[string]Reply{},
		Default: Reply{Text: "All done."}, Cap: 60}
}

// On scripts request n of every session. A usage set earlier with SetUsage
// is kept when r sets none, so the two can be scripted in either order.
func (m *Model) On(n int, r Reply) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.byN[n]; ok && r.Usage == nil {
		r.Usage = old.Usage
	}
	m.byN[n] = r
}

// Every scripts every request that has no reply of its own.
func (m *Model) Every(r Reply) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.every = &r
}

// OnPurpose scripts every request of a purpose other than "turn" and
// "final_answer", for example the doom loop's "loop_check" (TA-13). Such a
// request is answered from this script and does not take a number: the
// turn script stays aligned with the turns whatever the kernel checks in
// between. A purpose without a script is numbered like any request.
func (m *Model) OnPurpose(purpose string, r Reply) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.byPurpose[purpose] = r
}

// SetUsage makes request n report the given usage; a request without a
// reply of its own keeps the default reply.
func (m *Model) SetUsage(n int, u wire.Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.byN[n]
	if !ok {
		if m.every != nil {
			r = *m.every
		} else {
			r = m.Default
		}
	}
	r.Usage = &u
	m.byN[n] = r
}

// EveryUsage is the usage of every reply that sets none of its own (default
// 1000 input and 100 output tokens).
func (m *Model) EveryUsage(u wire.Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.usage = &u
}

// next picks the reply for the session's next request and its number.
func (m *Model) next(session string) (Reply, int) { return m.nextFor(session, wire.PurposeTurn) }

// nextFor picks the reply for the session's next request of a purpose. A
// purpose scripted with OnPurpose gets its reply with number 0.
func (m *Model) nextFor(session, purpose string) (Reply, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r, ok := m.byPurpose[purpose]; ok && purpose != wire.PurposeTurn && purpose != wire.PurposeFinalAnswer {
		return m.withUsage(r), 0
	}
	m.count[session]++
	n := m.count[session]
	if m.Cap > 0 && n > m.Cap {
		return m.withUsage(m.Default), n
	}
	if r, ok := m.byN[n]; ok {
		return m.withUsage(r), n
	}
	if m.every != nil {
		return m.withUsage(*m.every), n
	}
	return m.withUsage(m.Default), n
}

func (m *Model) withUsage(r Reply) Reply {
	if r.Usage == nil && m.usage != nil {
		u := *m.usage
		r.Usage = &u
	}
	return r
}

// stream renders a reply as stream events.
func (r Reply) stream(n int) wire.ModelStreamResult {
	if len(r.Events) > 0 {
		return wire.ModelStreamResult{Events: append([]wire.StreamEvent(nil), r.Events...)}
	}
	if r.Error != nil {
		return wire.ModelStreamResult{Events: []wire.StreamEvent{{Type: wire.EventErrorSE, Error: r.Error}}}
	}
	var ev []wire.StreamEvent
	if r.Text != "" {
		ev = append(ev, wire.StreamEvent{Type: wire.EventTextDelta, Text: r.Text})
	}
	calls := r.Calls
	if r.CallsFn != nil {
		calls = r.CallsFn(n)
	}
	if r.Switch != "" {
		ev = append(ev, wire.StreamEvent{Type: wire.EventSkillSwitchSE, Name: r.Switch})
	}
	for i, c := range calls {
		in := c.Input
		if len(in) == 0 {
			in = json.RawMessage(`{}`)
		}
		ev = append(ev, wire.StreamEvent{Type: wire.EventToolCall, ID: fmt.Sprintf("call-%d-%d", n, i+1), Name: c.Name, Input: in})
	}
	u := r.Usage
	if u == nil {
		u = &wire.Usage{InputTokens: 1000, OutputTokens: 100}
	}
	ev = append(ev, wire.StreamEvent{Type: wire.EventUsage, Usage: u})
	stop := r.StopReason
	if stop == "" {
		stop = "end_turn"
		if len(calls) > 0 {
			stop = "tool_use"
		}
	}
	return wire.ModelStreamResult{Events: append(ev, wire.StreamEvent{Type: wire.EventStop, StopReason: stop})}
}
