package jsonrpc

import (
	"encoding/json"
	"testing"
)

// encode writes the bytes json.Marshal writes for the same message, for
// members as this package makes them (params and results from
// json.Marshal) and for ids and method names as a peer may send them.
func TestEncodeIsMarshal(t *testing.T) {
	raw := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	params := raw(map[string]any{"text": "a <b> & c\u2028", "n": 1.5, "list": []any{nil, true, "x y"}})
	for _, m := range []wireMsg{
		{Method: "session/run", Params: params},
		{ID: json.RawMessage(`7`), Method: "tool/invoke", Params: params},
		{ID: json.RawMessage(`-12`), Result: params},
		{ID: json.RawMessage(`"a <id>"`), Result: raw(nil)},
		{ID: json.RawMessage(`"x"`), Error: &Error{Code: -32603, Message: "no <such> thing", Data: json.RawMessage(`{"a": 1}`)}},
		{ID: json.RawMessage(`{ "odd" : [1, 2] }`), Result: raw("ok")},
		{ID: json.RawMessage(`1.0`), Result: raw(1)},
		{ID: json.RawMessage(`-`), Result: raw(1)},
		{Method: "$/cancelRequest", Params: raw(map[string]json.RawMessage{"id": json.RawMessage(`3`)})},
		{Method: "odd \"method\" <é>", Params: raw(struct{}{})},
		{ID: json.RawMessage(`3`), Method: "m"},
	} {
		want, werr := json.Marshal(withVersion(m))
		got, gerr := encode(m)
		if (werr == nil) != (gerr == nil) || string(got) != string(want) {
			t.Errorf("encode(%+v) = %s, %v; json.Marshal wrote %s, %v", m, got, gerr, want, werr)
		}
	}
}

func withVersion(m wireMsg) wireMsg {
	m.JSONRPC = "2.0"
	return m
}
