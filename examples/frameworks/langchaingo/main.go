// Command langchaingo-kernel serves langchaingo's agents executor (v0.1.14,
// the OpenAI-functions agent) as a conform kernel: the executor runs its own
// loop, its model is the harness's model/stream (model.go), its tools are the
// harness's tool/invoke and its callbacks are the harness's hook points
// (hooks.go). What the glue adds is listed in README.md.
package main

import (
	"context"
	"errors"

	"github.com/agentconform/conform/kernelkit"
	"github.com/agentconform/conform/spec/wire"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/tools"
)

type kernel struct{}

// Info declares no optional capability: langchaingo's executor has no cost
// or wall-clock bound, no soft limits, no terminal tools, no doom-loop
// detector, no policy and no subagents. Its callbacks only observe
// (callbacks/callbacks.go: every handler returns nothing), which it says
// with the reading hooks.transforms.
func (kernel) Info() kernelkit.Info {
	return kernelkit.Info{Name: "langchaingo-agents-executor", Version: "0.1.14",
		Readings: map[string]string{"hooks.transforms": "observe_only"}, Glue: glue}
}

func (kernel) Run(ctx context.Context, h *kernelkit.Host, p wire.RunParams) (wire.RunSessionResult, error) {
	r := &run{s: kernelkit.NewSession(h, p)}
	var ts []tools.Tool
	for _, t := range p.Config.Tools {
		ts = append(ts, &tool{r: r, schema: t})
	}
	agent := agents.NewOpenAIFunctionsAgent(&model{r: r}, ts, agents.WithCallbacksHandler(r))
	opts := []agents.Option{agents.WithCallbacksHandler(r)}
	if n := p.Config.Bounds.MaxTurns; n != nil {
		opts = append(opts, agents.WithMaxIterations(*n)) // the executor's own cap; absent: its default, 5
	}
	out, err := chains.Call(ctx, agents.NewExecutor(agent, opts...), map[string]any{"input": p.Prompt})
	switch {
	case ctx.Err() != nil:
		return r.s.Finish(ctx, wire.StatusCancelled, nil, nil), nil
	case errors.Is(err, agents.ErrNotFinished):
		return r.s.Finish(ctx, wire.StatusErrorMaxTurns, nil, err), nil
	case err != nil:
		return r.s.Finish(ctx, wire.StatusFailed, nil, err), nil
	}
	text, _ := out["output"].(string)
	final := wire.Message{Role: "assistant", Content: []wire.ContentBlock{{Type: wire.BlockText, Text: text}}}
	return r.s.Finish(ctx, wire.StatusCompleted, &final, nil), nil
}

func main() { kernelkit.Main(kernel{}) }
