package steps

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/spec/wire"
)

// A tool error the model got without is_error fails ER-11's error-result
// check for a wire kernel, and is glue, not reached, for a bridged agent
// whose dialect has no error flag on a tool result; a bridged agent on a
// dialect with the flag is judged like a wire kernel.
func TestErrorResultWithoutTheFlag(t *testing.T) {
	for name, c := range map[string]struct {
		bridged    bool
		dialect    string
		notReached bool
	}{
		"wire kernel":                  {false, "", false},
		"bridged, openai-chat":         {true, "openai-chat", true},
		"bridged, anthropic (flagged)": {true, "anthropic", false},
	} {
		w := fakes.NewWorld()
		w.Model.On(1, fakes.Reply{Calls: []fakes.Call{{Name: "deploy", Input: json.RawMessage(`{"target":"prod"}`)}}})
		w.Model.On(2, fakes.Reply{Text: "The deployment failed."})
		var callID string
		for n := 1; n <= 2; n++ {
			p := wire.ModelStreamParams{CallContext: wire.CallContext{SessionID: "s", TurnID: "s/t1"}, Model: "fake-model"}
			if n == 2 {
				p.Messages = []wire.Message{{Role: "user", Content: []wire.ContentBlock{
					{Type: wire.BlockToolResult, ToolUseID: callID, Content: "temporarily unavailable"}}}}
			}
			raw, _ := json.Marshal(p)
			res, err := w.Respond(context.Background(), w.Accept(wire.MethodModelStream, raw))
			if err != nil {
				t.Fatalf("%s: model request %d: %v", name, n, err)
			}
			for _, ev := range res.(wire.ModelStreamResult).Events {
				if ev.Type == wire.EventToolCall {
					callID = ev.ID
				}
			}
		}
		env := &Env{Bridged: c.bridged, Info: wire.InitializeResult{Readings: map[string]string{BridgeDialect: c.dialect}}}
		s := &Scenario{World: w, SessionID: "s", ran: true, env: env}
		err := s.resultFor(2, 1, resultError)
		var nr *notReachedError
		if err == nil || errors.As(err, &nr) != c.notReached {
			t.Errorf("%s: %v; want an error, not reached %v", name, err, c.notReached)
		}
		w.Close()
	}
}
