package mutants

import (
	"testing"

	"github.com/agentconform/conform/refkernel/loop"
	"github.com/agentconform/conform/spec/wire"
)

// A legal variant of how the request reaches the model: the loop merges
// consecutive user messages into one before every request, keeping every
// block and its order (a real Python framework does, for vendors that want
// alternating roles). Step 3 streams the request the pre-model-call chain
// produced, and the merged request is that conversation block for block
// (PROTOCOL.md §7.3). Before, the check "model request N carried exactly
// the messages X returned" failed it, charged to HD-05 and HD-17, neither
// of which it is about.
func init() {
	registerVariant(Variant{Name: "hooks/merges-consecutive-user-messages",
		Reading: "consecutive user messages are merged into one before every model request, every block kept in order: the request is still the conversation the pre-model-call chain produced (PROTOCOL.md §7.3)",
		Apply: func(p loop.Parts) loop.Parts {
			p.Steps = wrapStep(p.Steps, loop.StepPreModelCall, func(t *loop.Turn) error {
				t.Request.Messages = mergeUsers(t.Request.Messages)
				return nil
			})
			return p
		}})
}

// mergeUsers merges each run of consecutive user messages into one.
func mergeUsers(ms []wire.Message) []wire.Message {
	out := make([]wire.Message, 0, len(ms))
	for _, m := range ms {
		if n := len(out); n > 0 && m.Role == "user" && out[n-1].Role == "user" {
			out[n-1].Content = append(append([]wire.ContentBlock(nil), out[n-1].Content...), m.Content...)
			continue
		}
		out = append(out, m)
	}
	return out
}

// judgeOne runs one registered variant and fails on every requirement it
// is blamed for.
func judgeOne(t *testing.T, name string) {
	t.Helper()
	for _, v := range allVariants() {
		if v.Name != name {
			continue
		}
		row, err := judgeVariant(v)
		if err != nil {
			t.Fatal(err)
		}
		if !row.Passed {
			t.Errorf("legal variant %s is blamed: %v", name, row.Blamed)
		}
		return
	}
	t.Fatalf("variant %s is not registered", name)
}
