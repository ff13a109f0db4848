package doomloop

import (
	"encoding/json"
	"testing"

	"github.com/agentconform/conform/spec/wire"
)

func TestHashCanonicalization(t *testing.T) {
	d := Standard{}
	base := d.Hash("search", json.RawMessage(`{"q":"x","n":1,"opts":{"a":1,"b":[1,2]}}`))
	cases := []struct {
		name    string
		tool    string
		input   string
		collide bool
	}{
		{"key order", "search", `{"opts":{"b":[1,2],"a":1},"n":1,"q":"x"}`, true},
		{"whitespace", "search", "{ \"q\" : \"x\",\n \"n\" : 1, \"opts\": { \"a\":1, \"b\": [1, 2] } }", true},
		{"string value", "search", `{"q":"y","n":1,"opts":{"a":1,"b":[1,2]}}`, false},
		{"number value", "search", `{"q":"x","n":2,"opts":{"a":1,"b":[1,2]}}`, false},
		{"number spelling kept", "search", `{"q":"x","n":1.0,"opts":{"a":1,"b":[1,2]}}`, false},
		{"array order", "search", `{"q":"x","n":1,"opts":{"a":1,"b":[2,1]}}`, false},
		{"tool name", "find", `{"q":"x","n":1,"opts":{"a":1,"b":[1,2]}}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := d.Hash(c.tool, json.RawMessage(c.input)) == base
			if got != c.collide {
				t.Fatalf("collide = %v, want %v", got, c.collide)
			}
		})
	}
	if d.Hash("ab", json.RawMessage(`"c"`)) == d.Hash("a", json.RawMessage(`b"c"`)) {
		t.Error("tool name and input run together")
	}
}

func TestCheck(t *testing.T) {
	cases := []struct {
		name      string
		history   []string
		threshold int
		fire      bool
		count     int
	}{
		{"empty", nil, 3, false, 0},
		{"two of three", []string{"a", "a"}, 3, false, 0},
		{"three in a row", []string{"a", "a", "a"}, 3, true, 3},
		{"broken streak", []string{"a", "a", "b", "a"}, 3, false, 0},
		{"old streak does not count", []string{"a", "a", "a", "b"}, 3, false, 0},
		{"longer run", []string{"b", "a", "a", "a", "a"}, 3, true, 4},
		{"threshold four", []string{"a", "a", "a"}, 4, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			trip, ok := Standard{}.Check(c.history, c.threshold)
			if ok != c.fire || (ok && (trip.Count != c.count || trip.Threshold != c.threshold)) {
				t.Fatalf("got %+v, %v", trip, ok)
			}
		})
	}
}

func TestConfig(t *testing.T) {
	n := func(v int) *int { return &v }
	if Threshold(nil) != DefaultThreshold || Window(nil) != DefaultThreshold {
		t.Fatal("defaults")
	}
	if got := Window(&wire.DoomLoop{Threshold: n(4), WindowSize: n(10)}); got != 10 {
		t.Fatalf("window %d", got)
	}
	for _, bad := range []*wire.DoomLoop{{Threshold: n(1)}, {Threshold: n(5), WindowSize: n(4)}} {
		if Validate(bad) == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}
