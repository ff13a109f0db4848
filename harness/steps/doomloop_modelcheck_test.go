package steps

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/agentconform/conform/spec/wire"
)

// modelCheckScenario has a data_source "search" and an interactive "ask".
func modelCheckScenario() *Scenario {
	s := &Scenario{}
	s.Cfg.Tools = []wire.ToolSchema{{Name: "search", Kind: wire.KindDataSource}, {Name: "ask", Kind: wire.KindInteractive}}
	return s
}

// turnsOf builds n turns, each with the named calls, inputs numbered.
func turnsOf(n int, names ...string) []turnCalls {
	out := make([]turnCalls, n)
	for i := range out {
		for j, name := range names {
			in, _ := json.Marshal(map[string]string{"q": fmt.Sprintf("value-%d-%d", i+1, j+1)})
			out[i] = append(out[i], wire.StreamEvent{Type: wire.EventToolCall, Name: name, Input: in})
		}
	}
	return out
}

// Where each counting of doom_loop.model_check_counts puts the checks in
// the scenarios of doom_loop.feature.
func TestDueAfter(t *testing.T) {
	s := modelCheckScenario()
	cases := []struct {
		name     string
		window   int
		turns    []turnCalls
		counting string
		carry    bool
		want     []int
	}{
		{"one call a turn", 2, turnsOf(6, "search"), "relevant_calls", false, []int{2, 4, 6}},
		{"one call a turn, turns", 2, turnsOf(6, "search"), "turns", false, []int{2, 4, 6}},
		{"window of one", 1, turnsOf(4, "search"), "calls", false, []int{1, 2, 3, 4}},
		{"two calls a turn", 4, turnsOf(6, "search", "search"), "relevant_calls", false, []int{2, 4, 6}},
		{"two calls a turn, turns", 4, turnsOf(6, "search", "search"), "turns", false, []int{4}},
		{"interactive invisible", 2, turnsOf(6, "search", "ask"), "relevant_calls", false, []int{2, 4, 6}},
		{"interactive counted", 2, turnsOf(6, "search", "ask"), "calls", false, []int{1, 2, 3, 4, 5, 6}},
		{"overfilled, reset", 3, turnsOf(6, "search", "search"), "calls", false, []int{2, 4, 6}},
		{"overfilled, carried", 3, turnsOf(6, "search", "search"), "calls", true, []int{2, 3, 5, 6}},
	}
	for _, c := range cases {
		if got := s.dueAfter(c.counting, c.carry, c.window, c.turns); !slices.Equal(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

// The calls a check must show: the declared counting's window, or what
// every counting's window holds.
func TestWindowCalls(t *testing.T) {
	s := modelCheckScenario()
	values := func(cs []wire.StreamEvent) []string {
		var out []string
		for _, c := range cs {
			out = append(out, inputStrings(c.Input)...)
		}
		return out
	}
	mixed := turnsOf(4, "search", "ask")
	cases := []struct {
		counting string
		window   int
		p        int
		want     []string
	}{
		{"relevant_calls", 2, 4, []string{"value-3-1", "value-4-1"}},
		{"calls", 2, 4, []string{"value-4-1"}},
		{"turns", 2, 4, []string{"value-3-1", "value-4-1"}},
		{"relevant_calls", 3, 2, []string{"value-1-1", "value-2-1"}},
	}
	for _, c := range cases {
		if got := values(s.windowCalls(c.counting, c.window, c.p, mixed)); !slices.Equal(got, c.want) {
			t.Errorf("%s window %d after turn %d: got %v, want %v", c.counting, c.window, c.p, got, c.want)
		}
	}
}

func TestContainsToken(t *testing.T) {
	for _, c := range []struct {
		s, v string
		want bool
	}{
		{`1. search {\"q\":\"value-1\"}`, "value-1", true},
		{`{\"q\":\"value-12\"}`, "value-1", false},
		{`{\"q\":\"value-12\"} and value-1.`, "value-1", true},
		{`{"looping": true}`, "looping", true},
		{`notlooping`, "looping", false},
	} {
		if got := containsToken(c.s, c.v); got != c.want {
			t.Errorf("containsToken(%q, %q) = %v", c.s, c.v, got)
		}
	}
}
