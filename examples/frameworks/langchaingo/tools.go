package main

import (
	"context"

	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/spec/wire"
)

// tool is a langchaingo tools.Tool run by the harness's tool/invoke. Like
// langchaingo's own tools it reports its start and end to the callbacks
// handler. A result the provider marks is_error is still the tool's output
// (langchaingo tools report failures as observations, tools/calculator.go);
// a failed request is the tool's error, which ends the executor
// (agents/executor.go:138).
type tool struct {
	r      *run
	schema wire.ToolSchema
}

func (t *tool) Name() string        { return t.schema.Name }
func (t *tool) Description() string { return t.schema.Description }

func (t *tool) Call(ctx context.Context, input string) (string, error) {
	r := t.r
	r.HandleToolStart(ctx, input)
	call := r.call(input)
	res, err := r.s.Host.Invoke(ctx, wire.ToolInvokeParams{
		CallContext: r.s.CallContext(r.turnID()), CallID: call.ID, Provider: t.schema.Provider,
		Tool: t.schema.Name, Input: call.Input, Attempt: 1,
	})
	if err != nil {
		r.HandleToolError(ctx, err)
		return "", err
	}
	out := kernelkit.OutputText(res.Output)
	r.HandleToolEnd(ctx, out)
	return out, nil
}
