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
	// CallsFn, when set, builds the calls from the request number n, so that
	// "every turn" scripts can vary their arguments per turn.
	CallsFn func(n int) []Call
}

// Model is the fake model provider. Replies are chosen by the number of the
// request within its session (1-based), whatever the request's purpose, so a
// kernel that sends an extra request meets the same script.
type Model struct {
	mu      sync.Mutex
	byN     map[int]Reply
	every   *Reply
	count   map[string]int
	Default Reply
	// Cap is the most requests a session gets scripted answers for; past
	// it the model only says it is done, so a kernel that never stops still
	// ends and is judged by the checks instead of the scenario timeout.
	Cap int
	// OnHang, when set, is told when a hanging reply starts, so a scenario
	// can act (cancel the session) while the model call is in flight.
	OnHang func(session string)
}

func newModel() *Model {
	return &Model{byN: map[int]Reply{}, count: map[string]int{},
		Default: Reply{Text: "All done."}, Cap: 60}
}

// On scripts request n of every session.
func (m *Model) On(n int, r Reply) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.byN[n] = r
}

// Every scripts every request that has no reply of its own.
func (m *Model) Every(r Reply) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.every = &r
}

// next picks the reply for the session's next request and its number.
func (m *Model) next(session string) (Reply, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.count[session]++
	n := m.count[session]
	if m.Cap > 0 && n > m.Cap {
		return m.Default, n
	}
	if r, ok := m.byN[n]; ok {
		return r, n
	}
	if m.every != nil {
		return *m.every, n
	}
	return m.Default, n
}

// stream renders a reply as stream events.
func (r Reply) stream(n int) wire.ModelStreamResult {
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
