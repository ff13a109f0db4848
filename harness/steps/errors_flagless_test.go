package steps

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentconform/conform/fakes"
	"github.com/agentconform/conform/spec/wire"
)

// A tool error the model got without is_error fails the error-result and
// category checks for a wire kernel, and is glue, not reached, for a
// bridged agent whose dialect has no error flag on a tool result; a
// bridged agent on a dialect with the flag is judged on the flag, never on
// a category (MCP gives it none).
func TestErrorResultWithoutTheFlag(t *testing.T) {
	for name, c := range map[string]struct {
		bridged            bool
		dialect            string
		flagged            bool
		resultNotReached   bool // resultFor: fails, or glue not reached
		categoryNotReached bool // resultCategory
	}{
		"wire kernel":                           {false, "", false, false, false},
		"wire kernel, flag without category":    {false, "", true, false, false},
		"bridged, openai-chat":                  {true, "openai-chat", false, true, true},
		"bridged, anthropic, no flag":           {true, "anthropic", false, false, false},
		"bridged, anthropic, flag, no category": {true, "anthropic", true, false, true},
	} {
		w := fakes.NewWorld()
		w.Model.On(1, fakes.Reply{Calls: []fakes.Call{{Name: "deploy", Input: json.RawMessage(`{"target":"prod"}`)}}})
		w.Model.On(2, fakes.Reply{Text: "The deployment failed."})
		var callID string
		for n := 1; n <= 2; n++ {
			p := wire.ModelStreamParams{CallContext: wire.CallContext{SessionID: "s", TurnID: "s/t1"}, Model: "fake-model"}
			if n == 2 {
				p.Messages = []wire.Message{{Role: "user", Content: []wire.ContentBlock{
					{Type: wire.BlockToolResult, ToolUseID: callID, Content: "temporarily unavailable", IsError: c.flagged}}}}
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
		var nr *notReachedError
		if err := s.resultFor(2, 1, resultError); c.flagged {
			if err != nil {
				t.Errorf("%s: error result: %v; want a pass (flagged)", name, err)
			}
		} else if err == nil || errors.As(err, &nr) != c.resultNotReached {
			t.Errorf("%s: error result: %v; want an error, not reached %v", name, err, c.resultNotReached)
		}
		if err := s.resultCategory(1, "unknown"); err == nil || errors.As(err, &nr) != c.categoryNotReached {
			t.Errorf("%s: category: %v; want an error, not reached %v", name, err, c.categoryNotReached)
		}
		w.Close()
	}
}
