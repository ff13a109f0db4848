package refkernel

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agentconform/conform/refkernel/dfirst"
	"github.com/agentconform/conform/refkernel/internal/fakehost"
	"github.com/agentconform/conform/spec/wire"
)

func dfParams(id, prompt string) wire.RunParams {
	return wire.RunParams{SessionID: id, Prompt: prompt, Config: wire.SessionConfig{
		Profile: "df", Model: wire.ModelSpec{Name: "m", Pricing: wire.Pricing{Currency: "USD", Free: true}},
		Tools: []wire.ToolSchema{{Provider: "p", Name: "note", Kind: wire.KindDataSource}},
		DeterministicFirst: &wire.DFConfig{Blocks: []wire.DFBlock{{Name: "b", Steps: []wire.DFStep{
			{Type: wire.StepExecuteTool, Tool: "note"},
			{Type: wire.StepAction, Text: "noted"},
			{Type: wire.StepModel},
			{Type: wire.StepAction, Text: "bye"},
		}}}},
	}}
}

// A tool writes memory while it runs; the kernel refuses writes it cannot
// attribute; a second run of the session starts where the first left off.
func TestDeterministicFirstRunsAndReopens(t *testing.T) {
	k := New(Parts{})
	if err := k.WriteMemory(wire.MemoryWriteParams{SessionID: "nobody", CallID: "c"}); !errors.Is(err, ErrUnknownSession) {
		t.Errorf("write to an unknown session: %v", err)
	}
	var writeErr error
	h := &fakehost.Host{}
	h.OnInvoke = func(_ context.Context, p wire.ToolInvokeParams) (wire.ToolInvokeResult, error) {
		if err := k.WriteMemory(wire.MemoryWriteParams{SessionID: "s1", CallID: "not-running", Values: map[string]json.RawMessage{"x": json.RawMessage(`1`)}}); !errors.Is(err, dfirst.ErrNotInFlight) {
			writeErr = err
		}
		return wire.ToolInvokeResult{Output: json.RawMessage(`"ok"`)}, k.WriteMemory(wire.MemoryWriteParams{
			SessionID: "s1", CallID: p.CallID, Values: map[string]json.RawMessage{"noted": json.RawMessage(`true`)}})
	}
	res, err := k.Run(context.Background(), h, dfParams("s1", "first"))
	if err != nil {
		t.Fatal(err)
	}
	if writeErr != nil {
		t.Errorf("a write for a call not in flight: %v", writeErr)
	}
	df := res.DeterministicFirst
	if res.Status != wire.StatusCompleted || res.Turns != 1 || df == nil || string(df.Memory["noted"]) != "true" || len(df.CallRecords) != 1 {
		t.Fatalf("first run: %+v, %+v", res, df)
	}
	// The model answered the block's model step; the next run goes on with
	// the step after it, answers without the model and runs no tool again.
	res, err = k.Run(context.Background(), h, dfParams("s1", "second"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != wire.StatusCompleted || res.Turns != 0 || len(res.DeterministicFirst.CallRecords) != 0 ||
		string(res.DeterministicFirst.Memory["noted"]) != "true" {
		t.Fatalf("second run: %+v, %+v", res, res.DeterministicFirst)
	}
	if err := k.WriteMemory(wire.MemoryWriteParams{SessionID: "s1", CallID: "c"}); err == nil {
		t.Error("a write to an ended session was accepted")
	}
}
